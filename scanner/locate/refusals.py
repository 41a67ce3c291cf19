"""Why no kingdom was located: one KingdomNotFoundError subclass per reason, each with its one line for
the player (what went wrong and what to do). The locator decides on these types, never on the text."""

from __future__ import annotations

from scanner.errors import KingdomNotFoundError


class LocatorRefusal(KingdomNotFoundError):
    """Base of the locator's refusals. ``rank``: how much the reason tells the player (the search keeps
    the highest-ranked refusal it met when no candidate is accepted)."""

    reason = "no kingdom found in the photo"
    rank = 0

    def __init__(self, message: str | None = None, overlay=None) -> None:
        super().__init__(message or self.reason, overlay)
        self.path: list[str] = []  # the locator's attempts, as on a located kingdom


class NoGridFound(LocatorRefusal):
    reason = (
        "no kingdom found in the photo: no grid of Kingdomino squares is visible "
        "(take the photo from above and in focus, from closer if the kingdom is small, "
        "with all of it in view)"
    )


class PhotoTooSmall(LocatorRefusal):
    reason = "the photo is too small to hold a kingdom"
    rank = 3


class CutOff(LocatorRefusal):
    reason = (
        "the kingdom seems cut off by the edge of the photo: take the photo with the whole kingdom in view"
    )
    rank = 1


class TooSmall(LocatorRefusal):
    """The squares are too small to read; the message gives their size."""

    rank = 1

    def __init__(self, square_px: float = 0.0, min_square_px: float = 20.0, overlay=None) -> None:
        super().__init__(
            f"the kingdom is too small in the photo (squares are about {square_px:.0f} px, at least "
            f"{min_square_px:.0f} px are needed): take the photo from closer",
            overlay,
        )
        self.square_px, self.min_square_px = square_px, min_square_px

    def in_photo(self, scale: float) -> TooSmall:
        """The same refusal in the pixels of the photo taken, for one searched in a copy at ``scale``."""
        refusal = TooSmall(self.square_px / scale, self.min_square_px / scale, self.overlay)
        refusal.path = list(self.path)
        return refusal


class PlainSquares(LocatorRefusal):
    reason = (
        "a grid was found, but its squares are plain colour, without the pictures printed on "
        "Kingdomino tiles (a drawing or a pattern?), not a kingdom"
    )
    rank = 1


class SquaresAlike(LocatorRefusal):
    reason = (
        "a grid was found, but its squares all look alike (a table or floor pattern?), not like a kingdom"
    )
    rank = 1


class NotTerrainColours(LocatorRefusal):
    reason = (
        "a grid was found, but its squares do not look like Kingdomino terrain "
        "(too few colourful squares): is this a kingdom?"
    )
    rank = 1


class OnlyTablePattern(LocatorRefusal):
    reason = (
        "a grid was found, but it is the table's pattern (a checkered cloth?), not a kingdom: "
        "photograph the kingdom from closer, or on a plain table"
    )
    rank = 4


class FrameUnreliable(LocatorRefusal):
    """Raised by the scanner when a frame found only on a reduced or sharpened copy reads badly."""

    reason = (
        "the kingdom could not be located reliably: its grid shows only on a smaller or sharpened copy of "
        "the photo (blurred?); hold the phone still, let it focus and take the photo from closer"
    )
    rank = 1


class BlackAndWhite(LocatorRefusal):
    """Raised by the scanner for a black-and-white photo in which no kingdom was seen: the squares are told
    from the table by their colours, so the missing colours are the likeliest cause, and one the player
    can mend."""

    reason = (
        "no kingdom found in this black-and-white photo: the scanner tells Kingdomino squares by their "
        "colours; take the photo in colour"
    )


#: The refusals a photo's missing colours may explain: no grid seen, or too few colourful squares (not the
#: squares' pictures, the photo's size, framing or sharpness, which grey shows as well).
COLOUR_REFUSALS = (NoGridFound, NotTerrainColours)


class TooDark(LocatorRefusal):
    """Raised by the scanner for a photo too dark to show a kingdom: what the search missed (no grid, too few
    colourful squares) is then the light's doing, whatever the camera's mode."""

    reason = (
        "no kingdom found: the photo is almost black; add light (a lamp, or the phone's flash) and take it "
        "again"
    )


#: A photo whose brightest hundredth of values (every channel) is under this (of 255) is too dark to show
#: anything: a nearly black photo, whose channels may also agree as a black-and-white photo's do.
DARK_PHOTO = 32


def for_the_photo(refusal: LocatorRefusal, grayscale: bool, brightest: float) -> LocatorRefusal:
    """The refusal to give the player (``brightest``: the 99th percentile of the photo's values): one the
    photo's missing light or colours may explain says so, the light first; any other is kept."""
    if not isinstance(refusal, COLOUR_REFUSALS) or (brightest >= DARK_PHOTO and not grayscale):
        return refusal
    kind = TooDark if brightest < DARK_PHOTO else BlackAndWhite
    told = kind(overlay=refusal.overlay)
    told.path = list(refusal.path)
    return told


def most_telling(refusals: list[LocatorRefusal]) -> LocatorRefusal:
    """The refusal that tells the player most: the highest rank, the first met among equals."""
    if not refusals:
        return NoGridFound()
    return max(refusals, key=lambda refusal: refusal.rank)  # max keeps the first of equal ranks
