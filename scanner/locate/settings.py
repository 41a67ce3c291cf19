"""The locator's settings: one frozen dataclass, passed to ``locate_kingdom`` (the default when omitted).

The figures behind each value are in docs/experiments.md; here each field says what it controls.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every attempt the locator knows, in the order they are tried (see scanner.locate.attempts). The colour
#: regions come before the whole lattice: an outline on a small copy costs a fraction of the work copy's
#: segments and settles many photos the fast attempt leaves. They are looked at again after it, for a
#: photo whose unsure fast frame waited for the whole search (an attempt runs at most once). The lattice of
#: the segments unlike the table comes before the windows: on a checked cloth the windows refit the cloth's
#: own lattice window after window and spend the budget, where leaving out the cloth's edges (between two of
#: its colours) costs one lattice fit, and its own windows only when that fails (docs/experiments.md,
#: "Segments unlike the table before the windows"). The deconvolved copy of a smeared photo comes right after
#: the cropped board: on the worst smeared photos the budget ends before the reduced and sharpened copies
#: (docs/experiments.md, "Motion blur measured and deconvolved").
ALL_ATTEMPTS = (
    "fast",
    "regions",
    "whole",
    "cropped",
    "deblurred",
    "regions",
    "unlike_table",
    "windows",
    "zoomed",
    "reduced",
    "sharpened",
)


@dataclass(frozen=True)
class LocatorSettings:
    # --- the attempts and their budget
    attempts: tuple[str, ...] = ALL_ATTEMPTS  # the attempts run, in this order (names of ALL_ATTEMPTS)
    budget_seconds: float = 4.0  # processor seconds of the search after which no new attempt or window starts

    # --- the views searched
    light_percentile: float = 99.0  # the photo's light: this percentile of its grey levels
    light_reference: float = 120.0  # a dimmer photo is brightened until its light reaches this level
    max_light_gain: float = 8.0  # ... by at most this factor (a black photo stays black)
    work_side: int = 1600  # longest side of the copy the lattice is searched on
    coarse_side: int = 1000  # the fast attempt's copy: reduced by an integer factor to at most this side
    coarse_min_square_px: float = 28  # the fast attempt decides alone only with squares this large there
    window_side: float = 0.5  # windows: this share of the photo's width and height
    window_stride: float = 0.25  # windows: a quarter of the photo apart
    small_windows: tuple[float, ...] = (0.15, 0.1)  # half-sides of the small windows (of the longest side)
    small_window_tiles: float = 0.7  # share of the closed cells a kingdom needs in those small windows
    zoom_half_side: float = 0.2  # zoomed windows: half-side, of the photo's longest side
    max_zoom: float = 3.0  # zoomed windows are enlarged at most this many times
    zoom_min_spread: float = 8.0  # colour spread (Lab) under which a patch is plain table, never zoomed
    patch_side: int = 256  # longest side of the copy the colourful patches are looked for on
    patches: int = 3  # colourful patches looked at
    # a sure frame beside the centre settles the search when nothing kingdom-like lies nearer the centre
    # (docs/experiments.md, "A sure kingdom beside the centre settles the search"); False: only a central one
    settle_beside: bool = True
    settle_margin: float = 1.0  # ... a colourful patch within this many squares of the frame is its own
    # an unsure frame on the kingdom's own lattice and its own seams settles the search as a sure one does:
    # the other generators only frame it anew (docs/experiments.md, "An unsure frame on the kingdom's own
    # lattice settles the search"); False: it waits for the generators of the other kind
    settle_unsure_own: bool = True
    blur_reduce: float = 0.5  # the reduced copy of a blurred photo: this share of its size
    sharpen_amount: float = 3.0  # the sharpened copy: unsharp-mask strength
    sharpen_sigma: float = 0.003  # the sharpened copy: Gaussian sigma, of the photo's longest side
    # a straight smear (a moving hand) measured on the photo and undone (docs/experiments.md, "Motion blur
    # measured and deconvolved")
    deblur_side: int = 1024  # longest side of the grey copy the smear is measured on (scanner.deblur)
    deblur_lengths: tuple[float, float] = (4.0, 14.0)  # smears measured: these extents (px of that copy)
    deblur_prominence: float = 0.25  # the log spectrum's first zero dips this far below its side lobe ...
    deblur_contrast: float = 0.15  # ... and this much deeper than across the motion (a defocus is round)
    deblur_noise: float = 0.01  # Wiener noise-to-signal ratio: how much the inverse is held back at zeros
    # a doubted frame fitted again (docs/experiments.md, "A doubted frame fitted again where its seams show")
    refit_drifted: bool = True  # from the lattice of seams its drift was measured against, when a doubt
    unsmeared_fits: int = 3  # fits of a doubted frame to its seams with the smear undone (0: none)
    unsmeared_side: int = 2000  # longest side of the grey copy the smear is undone on (larger ones reduced)
    region_side: int = 480  # longest side of the copy colour regions are looked for on (blur shrinks there)
    region_closing: float = 0.015  # regions: seams and small gaps closed over, of the copy's longest side
    # a square's side for a kingdom about a fifth of the photo wide (larger ones' dark squares stay open)
    region_square_closing: float = 0.045  # regions, when nothing passes: closed over a dark square (as above)
    # a table repeating along the border (check cloth, gingham): regions unlike it by its periods
    # (docs/experiments.md, "The cloth's own period")
    repeat_border: float = 0.15  # the border strips its periods are measured on, of the copy's longest side
    repeat_light_sigma: float = 0.02  # the light's slow changes taken out: a blur this wide, of the side
    min_repeat_px: float = 3.0  # shorter shifts are the blur of any texture, not a period
    min_repeat_correlation: float = 0.4  # a table repeats when its autocorrelation peaks this high
    min_repeat_strip: int = 8  # the border strips are at least this wide (px of the copy)
    repeat_across: float = 0.8  # a second period lies across the first: the cosine between them under this
    # the regions' last look, when no other accepted a frame (at least 2; docs/experiments.md, "The cloth's
    # period matched on two sides"): a pixel is the table when this many of its copies shifted by the periods
    # (each both ways) match it; the table repeats on every side, a square a period wide beside a like square
    # on that side only
    repeat_matches: int = 2
    regions: int = 3  # colour regions tried as a kingdom's outline, the most central first
    blob_reach: float = 0.025  # a blob's seams: segments this near it (of the small copy's side) ...
    blob_margin: float = 0.3  # ... and within its outline enlarged by this share about its middle
    surface_rim: float = 0.02  # a region's rim, whose colours are a mat's or a cloth's, of the copy's side
    cropped_aspect: tuple[float, float] = (0.8, 1.25)  # width / height of a photo that may be a cropped board

    # --- the table seen along the photo's border
    table_side: int = 640  # longest side of the copy the table's colours are taken on
    table_border: float = 0.04  # the border strip, of the copy's longest side
    table_colours: int = 6  # k-means colours of the border
    table_reach: float = 0.06  # segments this near (of the copy's side) to colours unlike the table count

    # --- the lattice fit
    direction_peaks: int = 3  # strongest segment directions paired in the lattice search
    second_search_peaks: int = 5  # the same, in the search for a more central second kingdom
    refine_cell_px: int = 48  # rectified resolution the frame lines are refined at
    fine_cell_px: int = 96  # the same, for the last passes on the photo itself
    fine_passes: int = 2  # refinement passes on the photo after the fast attempt
    frame_fit_passes: int = 2  # passes of the chosen frame's last fit to all its seams at once, on the photo

    # --- the judge: what a candidate frame must show to be a kingdom
    min_seam_support: float = 0.5  # share of the lattice's sides on a seam (whole-photo lattices)
    min_window_seam_support: float = 0.6  # the same for a lattice found in a window (it sees less)
    min_aspect: float = 0.55  # shorter / longer pair of frame sides: more is a view from above 55° or less
    min_square_px: float = 20  # smaller squares (in the photo) cannot be read reliably
    texture_gradient: float = 1.5  # median gradient inside a square above which it shows printed artwork
    min_textured: float = 0.2  # share of the squares with artwork a kingdom shows at least
    min_artwork: float = 0.1  # share of squares textured and unlike the table (when a table is in view)
    min_colourful: float = 0.4  # share of squares of saturated colour (median saturation >= 70)
    min_varied: float = 0.25  # share of squares whose colour differs from the frame's median one
    plain_gradient: float = 3.0  # a table check: median gradient at most this (plain colour)
    table_distance: float = 10.0  # a table check: its pixels within this Lab distance of a border colour
    table_alike: float = 0.8  # a table check: this share of its pixels so
    repeat_distance: float = 8.0  # a table check: mean colour this near its 2×2 repeat's
    check_contrast: float = 15.0  # a table check: unlike each square beside it by more than this
    max_table_pattern: float = 0.3  # a frame with this share of table checks is the table's pattern
    max_middle_seams: float = 0.45  # seams through the squares' middles, of those on its lines: not tiles
    unsure_margin: float = 0.1  # seam support this close to its minimum: one whole doubt (Verdict.doubt)
    min_outline_support: float = 0.5  # ... so is a returned frame's outline support this low
    min_ridge_support: float = 0.1  # ... a smeared family's sides on a ridge at this (ridge_support)
    max_seam_drift: float = 0.25  # ... a family's seams this far (squares) from its lines (seam_drift)
    # one measure of the frame's doubts (judge.Verdict.doubt): each threshold of doubt above and below has a
    # band on the sure side, as wide as the closest twentieth of correct frames lies from it (dev seeds)
    seam_doubt_band: float = 0.02  # seam support over its minimum plus unsure_margin
    outline_doubt_band: float = 0.1  # outline support over min_outline_support
    ridge_doubt_band: float = 0.12  # a smeared family's ridge support over min_ridge_support
    drift_doubt_band: float = 0.13  # seam drift under max_seam_drift (squares)
    rival_doubt_band: float = 0.25  # runner-up margin over unsure_placement_margin (score per side)
    outside_doubt_band: float = 3.0  # tiles just outside the frame under unsure_artwork_outside
    doubt_comfort: float = 0.2  # the most one piece of evidence clear of its band takes off the doubt
    placement_seam_credit: float = 0.2  # seam support a frame of artwork squares only (placement) may lack
    gate_share: float = 0.6  # outline lattices below this share of least seam support: not judged in full
    gate_refinements: int = 1  # refinements of an outline lattice before gate_share's test (1, 2; 0: none)

    # --- the placement on the lattice: artwork inside the frame, the table around it (placement.py)
    ring_distance: float = 10.0  # cells this near (Lab, lightness half, and lightness spread) look alike
    ring_consensus: float = 0.2  # a cell is table-like when it looks like this share of the ring's cells
    min_ring_cells: int = 8  # ring cells in the photo needed to say what the table looks like
    table_palette: int = 4  # colours (k-means) of the outermost ring described: the table around a frame
    rim_pixels_per_colour: int = 10  # a surface's rim this thin per palette colour is too few pixels to name
    ring_palette: int = 3  # colours (k-means) of the band around an outline fitted to its seams
    artwork_unlike: float = 0.5  # a cell is artwork when more than this share of its pixels is unlike them
    # a window's square like its ring that its tiles close in on along its row and its column is a hole in
    # the kingdom, neither artwork nor the table's pattern (docs/experiments.md, "A hole closed in by tiles");
    # False: it counts as the table's pattern
    enclosed_holes: bool = True
    max_shift: int = 2  # windows looked at: edges at most this many squares from the frame's
    max_table_share: float = 0.4  # a frame with this share of squares like its ring is the table's pattern
    unsure_placement_margin: float = 1.0  # a rival window within this (score per side): unsure, or one doubt
    max_artwork_outside: int = 2  # more tiles than this just outside a frame: it is on the table's lattice
    table_lattice_share: float = 0.2  # squares like the ring from this share: maybe the table's lattice too
    max_tiles_around: int = 11  # more tiles than this just outside a 7×7 window: no table around, no kingdom
    min_kingdom_score: float = 0.0  # a frame whose best window scores no more than this is not a kingdom
    min_kingdom_margin: float = 0.0  # ... nor one whose runner-up window scores within this per square of it
    unsure_artwork_outside: int = 4  # more tiles just outside a frame: unsure; this many: one whole doubt
    outline_reach: float = 0.45  # a frame's side moves at most this (of a square) onto the artwork's edge
    outline_step: float = 0.35  # ... when the share of pixels unlike the table steps by this across it
    lattice_angle: float = 3.0  # degrees: segments along a table's lattice, left out to find the kingdom's
    table_line_squares: float = 7.5  # segments along a straight line farther (squares) than a kingdom
    table_line_width: float = 0.05  # ... their ends within this (of a square) of the line
    table_line_seeds: int = 400  # the longest segments tried as such a line

    # --- growing a 5×5 window to the Mighty Duel 7×7 around it
    grow_screen: float = 0.4  # ring sides on a seam on the extended 5×5 lattice (a quick screen)
    grow_ring: float = 0.5  # the same on the refined 7×7 lattice
    grow_closed: int = 10  # ring squares closed on at least 3 sides
    grow_max_drift: float = 0.2  # the refit 7×7 moving its 5×5 more (squares) is on another lattice
    grow_ring_spread: float = 0.5  # ring cells nearer one another than this share of the middle: a surface


DEFAULT_SETTINGS = LocatorSettings()
