"""Training-data export: a corrected kingdom in the layout of data/real, to grow the labelled set."""

from __future__ import annotations

import io
import json
import re
import zipfile

import cv2

from page.drawing import encode_jpeg, readable_jpeg
from page.state import PlayerKingdom

#: Pixels per square of exported rectified images, as in data/real/boards (500×500 for 5×5).
EXPORT_SQUARE_PX = 100


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "kingdom"


def export_training_zip(player: PlayerKingdom, stem: str | None = None) -> bytes:
    """A corrected kingdom in the layout of data/real: boards/<stem>.jpg + labels.json, plus the board JSON.

    The rectified image is N×100 px square like data/real/boards, so the zip can be merged into data/.
    A board entered by hand has no image, and a damaged stored image cannot be decoded: their zip holds the
    board JSON only.
    """
    kingdom = player.kingdom
    if kingdom is None:
        raise ValueError("the player has no kingdom to export")
    stem = stem or slug(f"{player.name}-{player.source or 'hand'}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{stem}.board.json", json.dumps(kingdom.to_dict(), indent=1))
        same_frame = player.base is not None and kingdom.grid_size == player.base.grid_size
        image = (
            readable_jpeg(player.rectified_jpeg) if player.rectified_jpeg is not None and same_frame else None
        )
        if image is not None:
            px = kingdom.grid_size * EXPORT_SQUARE_PX
            if image.shape[:2] != (px, px):
                image = cv2.resize(image, (px, px), interpolation=cv2.INTER_AREA)
            name = f"{stem}.jpg"
            archive.writestr(f"boards/{name}", encode_jpeg(image, 95))
            entry = {
                "image": f"boards/{name}",
                "width": px,
                "height": px,
                "grid_size": kingdom.grid_size,
                "square_px": EXPORT_SQUARE_PX,
                "grid": kingdom.to_dict()["squares"],
                "kingdom_id": stem,
                "source": f"kingdomino-scanner page: {player.source or 'photo'}, corrected by the player",
                "corrected_cells": sorted([list(cell) for cell in player.corrected_cells]),
            }
            labels = {
                "description": "Kingdoms scanned and corrected on the kingdomino-scanner page.",
                "conventions": {
                    "grid": "grid[row][col]; row 0 = top of the image; square_px pixels per square"
                },
                "boards": {name: entry},
            }
            archive.writestr("labels.json", json.dumps(labels, indent=1))
    return buffer.getvalue()
