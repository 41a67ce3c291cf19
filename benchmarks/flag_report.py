"""Replay the review rules on squares collected by ``benchmarks.flag_calibration``: what flags the squares
read right, which misread squares stay unflagged, and the flag share of the review rule at each level."""

from __future__ import annotations

import numpy as np

from scanner.decode import FLAG_MARGIN

#: The rules before the calibration, replayed: the decoder flagged changes, squares in no box domino and
#: margins under 3.5 nats; photos with a fifth of their squares under 0.9 or dim (lightness under 80)
#: flagged every square under 6 nats.
OLD_MARGIN, OLD_WIDE_MARGIN, OLD_UNSURE, OLD_UNSURE_SHARE, OLD_DIM = 3.5, 6.0, 0.9, 0.2, 80.0
#: The thresholds the report tries for the one margin rule.
SWEEP = (3.5, 4.0, 4.5, 5.0, 5.5, 6.0)


def decoder_parts(data: dict) -> dict[str, np.ndarray]:
    """The decoder's own flags, split by cause."""
    return {
        "changed": data["changed"],
        "orphan": data["orphan"] & ~data["changed"],
        f"margin<{FLAG_MARGIN}": (data["margin"] < FLAG_MARGIN) & ~data["changed"] & ~data["orphan"],
    }


def photo_ids(data: dict) -> np.ndarray:
    return np.array([f"{run}:{seed}" for run, seed in zip(data["run"], data["seed"], strict=True)])


def review_part(data: dict) -> np.ndarray:
    """Squares the castle and table rules flag (their margin may hide a few of them under the decoder's)."""
    old = data["changed"] | data["orphan"] | (data["margin"] < OLD_MARGIN)
    return data["reason_read"] & ~old & ~(data["margin"] < FLAG_MARGIN)


def old_rule(data: dict) -> np.ndarray:
    """The flags as the scanner gave them before the calibration."""
    photos = photo_ids(data)
    unsure = np.zeros(len(photos), bool)
    for photo in np.unique(photos):
        here = photos == photo
        unsure[here] = np.mean(data["weighed"][here].max(axis=1) < OLD_UNSURE) >= OLD_UNSURE_SHARE
    wide = (unsure | (data["lightness"] < OLD_DIM)) & (data["margin"] < OLD_WIDE_MARGIN)
    decoder = data["changed"] | data["orphan"] | (data["margin"] < OLD_MARGIN)
    return decoder | review_part(data) | wide | data["reason_glare"] | data["reason_grayscale"]


def margin_rule(data: dict, margin: float) -> np.ndarray:
    """The one rule: the decoder's margin under ``margin``, with the castle, table, glare and grey rules."""
    return (data["margin"] < margin) | review_part(data) | data["reason_glare"] | data["reason_grayscale"]


def causes(data: dict) -> dict[str, np.ndarray]:
    """Every flag rule of the scan as it stands, by name (a square may have several)."""
    parts = decoder_parts(data)
    decoder = np.logical_or.reduce(list(parts.values()))
    named = dict(parts)
    rules = sorted(key for key in data if key.startswith("reason_review_"))
    if rules:  # collected with each review rule apart
        named.update({key.removeprefix("reason_review_"): data[key] for key in rules})
    else:
        named["review (castle, table)"] = data["reason_read"] & ~decoder
    for reason in ("glare", "grayscale", "unfamiliar", "dim"):
        named[reason] = data[f"reason_{reason}"]
    return named


def _share(part: np.ndarray, whole: int) -> str:
    return f"{int(part.sum()):>5} ({100 * part.sum() / max(whole, 1):5.2f} %)"


def figures(data: dict, flagged: np.ndarray, label: str) -> str:
    wrong = data["truth"] != data["read"]
    squares = len(wrong)
    return (
        f"{label:<34} squares {squares:>5}  misread {_share(wrong, squares)}  "
        f"unflagged {_share(wrong & ~flagged, squares)}  flagged {_share(flagged, squares)}"
    )


def report(data: dict) -> int:
    wrong = data["truth"] != data["read"]
    right = ~wrong
    print(figures(data, data["flagged"], "as scanned"))
    rules = {"old rules (replayed)": old_rule(data)}
    rules.update({f"margin < {margin}": margin_rule(data, margin) for margin in SWEEP})
    for name, flags in rules.items():
        print(figures(data, flags, name))
        for run in np.unique(data["run"]):
            here = data["run"] == run
            print(figures({k: v[here] for k, v in data.items()}, flags[here], f"  {run}"))
    print(f"\nby condition, old rules -> margin < {FLAG_MARGIN}:")
    new, old = margin_rule(data, FLAG_MARGIN), rules["old rules (replayed)"]
    for condition in np.unique(data["condition"]):
        here = data["condition"] == condition
        print(
            f"  {condition:<16} squares {here.sum():>5} misread {int(wrong[here].sum()):>3}  unflagged "
            f"{int((wrong & ~old & here).sum())} -> {int((wrong & ~new & here).sum())}  "
            f"flagged {100 * old[here].mean():5.2f} % -> {100 * new[here].mean():5.2f} %"
        )
    print("\nwhat flags the squares (a square may have several causes; 'only': no other), right | misread:")
    named = causes(data)
    stack = np.array(list(named.values()))
    for name, flags in named.items():
        only = flags & (stack.sum(axis=0) == 1)
        print(
            f"  {name:<24} {_share(flags & right, right.sum())}  only {_share(only & right, right.sum())}"
            f"  | {int((flags & wrong).sum()):>3}  only {int((only & wrong).sum()):>3}"
        )
    print("\nmisread squares: truth -> read, margin, causes")
    for index in np.nonzero(wrong)[0]:
        why = ",".join(name for name, flags in named.items() if flags[index]) or "unflagged as scanned"
        why += "" if new[index] else f"; UNFLAGGED at margin < {FLAG_MARGIN}"
        print(
            f"  {data['run'][index]:<28} seed {data['seed'][index]} {data['condition'][index]:<9} cell "
            f"{data['cell'][index]:>2} {data['truth'][index]:>2}->{data['read'][index]:<2} "
            f"margin {data['margin'][index]:5.1f}  {why}"
        )
    return 0
