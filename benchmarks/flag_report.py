"""Replay the review rules on squares collected by ``benchmarks.flag_calibration``: what flags the squares
read right, which misread squares stay unflagged, and the flag share of the review rule at each level."""

from __future__ import annotations

import numpy as np

from kingdomino.labels import LABELS
from model.label_columns import IS_LAND, LABEL_CROWNS, LABEL_TERRAIN
from scanner.decode import FLAG_MARGIN, DecodedKingdom, SolvedKingdom, solve_kingdom, with_margins
from scanner.reading import DEFAULT_READING, ReadingDetails, any_reason, review_reasons
from scanner.tall import Leaning

#: The rules before the calibration, replayed: the decoder flagged changes, squares in no box domino and
#: margins under 3.5 nats; photos with a fifth of their squares under 0.9 or dim (lightness under 80)
#: flagged every square under 6 nats.
OLD_MARGIN, OLD_WIDE_MARGIN, OLD_UNSURE, OLD_UNSURE_SHARE, OLD_DIM = 3.5, 6.0, 0.9, 0.2, 80.0
#: The thresholds the report tries for the one margin rule.
SWEEP = (3.5, 4.0, 4.5, 5.0, 5.5, 6.0)
#: The flag margins the decoder is solved again at (a scan's margins are exact only up to its own flag margin)
RESOLVED_SWEEP = (4.0, 4.25, 4.5, 4.75, 5.0, 5.5, 6.0)
#: Issue 36's rate between its two targets: 0.1 % of the squares misread and unflagged against 3 % flagged
FLAGS_PER_MISS = 30
#: The flag reasons a scan stores that the replay judges again (the decoder's own and the review rules, on the
#: margins solved again); every other stored reason (glare, grey, unfamiliar, dim ...) is replayed as stored.
REJUDGED = ("reason_read", "reason_margin")


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
    """Squares the review rules flag: the castle's, the table's, the pieces' and the deconvolved kingdom's
    higher margin (their margins may hide a few of them under the decoder's)."""
    rules = [key for key in data if key.startswith("reason_review_") and not key.endswith("artwork_unlike")]
    if rules:  # collected with each rule apart (an artwork rule is replayed apart: second_opinions)
        return np.logical_or.reduce([data[key] for key in rules])
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


def solved_photos(data: dict) -> list[tuple[np.ndarray, SolvedKingdom]]:
    """Each photo's squares (their rows of ``data``, in cell order) and its stored weighed probabilities
    decoded again: the best kingdom does not depend on the flag margin, only its margins do."""
    photos, solved = photo_ids(data), []
    for photo in np.unique(photos):
        here = np.nonzero(photos == photo)[0]
        n = int(data["grid"][here[0]])
        kingdom = solve_kingdom(data["weighed"][here].reshape(n, n, -1))
        solved.append((here[np.argsort(data["cell"][here])], kingdom))
    return solved


def margins_at(data: dict, threshold: float, solved: list | None = None) -> np.ndarray:
    """Every square's decoder margin as a scan flagging under ``threshold`` gives it (``with_margins`` solves
    exactly only the squares whose flag depends on its threshold, so the margins a scan stored are loose
    above its own flag margin); ``solved``: the photos' ``solved_photos``, when already made."""
    margins = np.empty(len(data["truth"]))
    for rows, kingdom in solved_photos(data) if solved is None else solved:
        margins[rows] = np.asarray(with_margins(kingdom, threshold).margins).ravel()
    return margins


def photo_details(data: dict, rows: np.ndarray, decoded: DecodedKingdom) -> ReadingDetails:
    """One photo's ``ReadingDetails`` rebuilt from its stored squares (``rows``, in cell order), with the
    margins, changes and orphans of ``decoded``: what ``review_reasons`` reads."""
    n = int(data["grid"][rows[0]])
    likeness, taken = data["likeness"][rows], data["taken"][rows]
    cover = data["cover"][rows][:, : n * n].reshape(n, n, n, n)
    none = np.zeros((n, n))  # review_reasons reads only the share the lean took off each square
    leaning = Leaning(none, none, none, None if np.isnan(taken).all() else taken.reshape(n, n))
    return ReadingDetails(
        raw=data["raw"][rows].reshape(n, n, -1),
        evidence=data["evidence"][rows].reshape(n, n),
        likeness=None if np.isnan(likeness).all() else likeness.reshape(n, n),
        margins=np.asarray(decoded.margins),
        cover=cover,
        leaning=leaning,
        changed=np.asarray(decoded.changed),
        orphans=np.asarray(decoded.orphans),
        pieces=data["pieces"][rows].reshape(n, n).astype(bool),
    )


def resolved_rule(data: dict, threshold: float, solved: list | None = None) -> np.ndarray:
    """The squares today's rules flag with the flag margin at ``threshold``: the decoder solved again there
    and ``scanner.reading.review_reasons`` called on it, the reasons that do not depend on the margin as
    stored; ``solved``: the photos' ``solved_photos``, when already made. Squares collected before the
    castle's cover and lean were stored keep their stored review verdicts (the retired deblurred rule left
    out)."""
    replayable, flags = "cover" in data, np.zeros(len(data["truth"]), bool)
    for key in data:
        if not key.startswith("reason_") or key in REJUDGED or key == "reason_review_deblurred":
            continue
        if not key.startswith("reason_review") or not replayable:  # older collections: one "reason_review"
            flags |= data[key].astype(bool)
    for rows, kingdom in solved_photos(data) if solved is None else solved:
        decoded = with_margins(kingdom, threshold)
        flags[rows] |= np.asarray(decoded.margins).ravel() < threshold
        if replayable:
            reasons = review_reasons(decoded.kingdom, photo_details(data, rows, decoded), DEFAULT_READING)
            flags[rows] |= any_reason(reasons).ravel()
    return flags


def resolved_report(data: dict) -> None:
    """Today's rules at each flag margin of RESOLVED_SWEEP, on the margins solved again there, with issue
    36's exchange of one unflagged misread for FLAGS_PER_MISS flags (lower is better)."""
    wrong, solved = data["truth"] != data["read"], solved_photos(data)  # each photo decoded once
    print(f"\nthe flag margin, the decoder solved again at each (unflagged + flagged / {FLAGS_PER_MISS}):")
    if "cover" not in data:
        print("  (collected before the castle's cover was stored: the review rules as the scan judged them)")
    for threshold in RESOLVED_SWEEP:
        flags = resolved_rule(data, threshold, solved)
        objective = (wrong & ~flags).sum() + flags.sum() / FLAGS_PER_MISS
        print(f"{figures(data, flags, f'  flag margin {threshold}')}  objective {objective:6.1f}")


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


def photo_shares(data: dict, squares: np.ndarray) -> np.ndarray:
    """For each square, the share of the *other* squares of its photo where ``squares`` is true."""
    _, photo = np.unique(photo_ids(data), return_inverse=True)
    count, own = np.bincount(photo), squares.astype(float)
    return (np.bincount(photo, own)[photo] - own) / np.maximum(count[photo] - 1, 1)


def photo_evidence(data: dict) -> dict[str, np.ndarray]:
    """What a photo's own pixels and squares say of it, per square (0 or 1, or a share): the candidates
    for tempering its squares' margins."""
    return {
        "unsure share": photo_shares(data, data["weighed"].max(axis=1) < OLD_UNSURE),
        "doubt share": photo_shares(data, data["margin"] < FLAG_MARGIN),
        "dim": (data["lightness"] < 100.0).astype(float),
        "blurred": (data["sharpness"] < 15.0).astype(float),
        "warm": (data["lab_b"] > 20.0).astype(float),
    }


def colour_unlike(data: dict, pair: tuple[str, str] = ("wheat", "grassland")) -> np.ndarray:
    """Squares read as one of ``pair`` whose mean colour (a, b) lies nearer the photo's squares read as the
    other than the photo's other squares read as their own terrain."""
    terrain = np.array([label.terrain.value for label in LABELS])[data["read"]]
    colour, photos, flags = data["square_lab"][:, 1:], photo_ids(data), np.zeros(len(terrain), bool)
    for index in np.nonzero(np.isin(terrain, pair))[0]:
        here = photos == photos[index]
        same = here & (terrain == terrain[index])
        same[index] = False
        other = here & (terrain == pair[pair[0] == terrain[index]])
        if same.any() and other.any():
            distance = [np.linalg.norm(colour[part].mean(axis=0) - colour[index]) for part in (same, other)]
            flags[index] = distance[1] < distance[0]
    return flags


def photo_report(data: dict) -> None:
    """The per-photo candidates: the margin threshold raised by the photo's evidence, a second white
    hypothesis and the photo's own colours, against the one flat threshold."""
    wrong, other = data["truth"] != data["read"], data["flagged"] & ~data["reason_margin"]
    print(
        "\nper-photo tempering, flag = margin < a + b * evidence (and the other rules), "
        f"flat a = {FLAG_MARGIN}:"
    )
    flat = (data["margin"] < FLAG_MARGIN) | other
    print(figures(data, flat, f"  flat {FLAG_MARGIN}"))
    for name, evidence in photo_evidence(data).items():
        fits = [
            ((data["margin"] < a + b * evidence) | other, a, b) for a in (3.0, 3.5, 4.0) for b in (1, 2, 4, 8)
        ]
        within = [fit for fit in fits if fit[0].mean() <= flat.mean() + 1e-9] or fits
        flags, a, b = min(within, key=lambda fit: ((wrong & ~fit[0]).sum(), fit[0].mean()))
        print(figures(data, flags, f"  {name} (a {a}, b {b})"))
    if "raw_own" in data:
        disagree = data["raw_own"].argmax(axis=1) != data["read"]
        print(figures(data, flat | disagree, "  + each square's own white disagrees"))
    if "square_lab" in data:
        print(figures(data, flat | colour_unlike(data), "  + colour nearer wheat/grassland"))


#: The flat margins the second opinions are replayed beside (the frontier of the one-threshold rule).
FRONTIER = (3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 7.0)


def second_opinions(data: dict) -> dict[str, np.ndarray]:
    """Squares a second opinion at reading time doubts, by name (see flag_calibration.second_opinions):
    the ensemble's members, the joint model against the crown model, the artwork matcher."""
    read = data["read"]
    squares = np.arange(len(read))
    opinions: dict[str, np.ndarray] = {}
    if "member_log" in data:
        members = data["member_log"]
        opinions["a member's top label differs"] = (members.argmax(axis=2) != read[:, None]).any(axis=1)
        least = np.exp(members[squares, :, read].min(axis=1))
        for level in (0.5, 0.9):
            opinions[f"a member gives the reading < {level}"] = least < level
        land = _land(read)
        crown_read = np.exp(data["crown_log"][squares, LABEL_CROWNS[read]])
        opinions["crown model's count differs"] = land & (
            data["crown_log"].argmax(axis=1) != LABEL_CROWNS[read]
        )
        opinions["crown model gives the count < 0.9"] = land & (crown_read < 0.9)
        joint = data["joint_log"].argmax(axis=1)
        opinions["joint model's count differs"] = land & (LABEL_CROWNS[joint] != LABEL_CROWNS[read])
        opinions["joint model's label differs"] = joint != read
    if "match" in data:
        judged, best, lead = _matcher_lead(data)
        for by in (0.0, 0.02, 0.05, 0.1):
            opinions[f"matcher's best label differs by {by}"] = judged & (best != read) & (lead > by)
        opinions["matcher's best terrain differs by 0.05"] = (
            judged & (LABEL_TERRAIN[best] != LABEL_TERRAIN[read]) & (lead > 0.05)
        )
    return opinions


def _land(read: np.ndarray) -> np.ndarray:
    """Whether each square's reading is a land terrain (one that carries crowns)."""
    return IS_LAND[LABEL_TERRAIN[read]]


def _matcher_lead(data: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The artwork matcher's opinion per square: whether it can judge the reading (a tile label with
    training examples), its best such label, and how much better that label matches than the reading's."""
    read, match = data["read"], data["match"]
    empty = np.array([label.terrain.value == "empty" for label in LABELS])
    opinion = ~empty & (match.max(axis=0) > -1)
    scores = np.where(opinion, match, -np.inf)
    judged = opinion[read]
    lead = np.where(judged, scores.max(axis=1) - match[np.arange(len(read)), read], 0.0)
    return judged, scores.argmax(axis=1), lead


def doubt_scores(data: dict) -> dict[str, np.ndarray]:
    """The decoder's margin lowered by a second opinion's doubt (nats-like, lower = flag first): a member's
    log-probability of the reading, the crown model's of its count, the matcher's lead of another label."""
    read, squares = data["read"], np.arange(len(data["read"]))
    margin = data["margin"]
    scores = {"margin": margin}
    if "member_log" in data:
        least = data["member_log"][squares, :, read].min(axis=1)
        crown = np.where(_land(read), data["crown_log"][squares, LABEL_CROWNS[read]], 0.0)
        for k in (0.5, 1.0, 2.0):
            scores[f"margin + {k} x least member log p"] = margin + k * least
        for k in (0.5, 1.0, 2.0):
            scores[f"margin + {k} x crown model log p"] = margin + k * crown
    if "match" in data:
        _, _, lead = _matcher_lead(data)
        for k in (10.0, 25.0, 50.0):
            scores[f"margin - {k:g} x matcher's lead"] = margin - k * lead
    return scores


def at_share(data: dict, score: np.ndarray, share: float) -> tuple[float, int]:
    """(flagged share, misread unflagged) of ``score < t`` with the other rules, at the largest t that
    flags no more than ``share`` of the squares."""
    wrong = data["truth"] != data["read"]
    other = review_part(data) | data["reason_glare"] | data["reason_grayscale"]
    order = np.argsort(score, kind="stable")
    flagged = other.sum() + np.cumsum(~other[order])  # after flagging the first k+1 squares by score
    k = int(np.searchsorted(flagged, share * len(score), side="right"))  # squares flagged by the score
    flags = other.copy()
    flags[order[:k]] = True
    return flags.mean(), int((wrong & ~flags).sum())


def frontier_report(data: dict) -> None:
    """Each second opinion added to the flat margin rule at several thresholds, against the flat rule alone:
    flagged share and misread squares left unflagged."""
    opinions = second_opinions(data)
    if not opinions:
        return
    wrong = data["truth"] != data["read"]
    print("\nsecond opinions beside the flat margin: flagged % / misread unflagged, at margin <", FRONTIER)
    rows = {"flat margin alone": np.zeros(len(wrong), bool)} | opinions
    for name, extra in rows.items():
        cells = []
        for margin in FRONTIER:
            flags = margin_rule(data, margin) | extra
            cells.append(f"{100 * flags.mean():5.2f}/{int((wrong & ~flags).sum()):<3}")
        caught = wrong & extra & ~margin_rule(data, FLAG_MARGIN)
        print(
            f"  {name:<40} {' '.join(cells)}  fires on {100 * extra.mean():5.2f} %, "
            f"catches {int(caught.sum())} left at {FLAG_MARGIN}"
        )
    print("\nscores at the flat rule's flagged shares: flagged % / misread unflagged")
    shares = [margin_rule(data, margin).mean() for margin in FRONTIER]
    for name, score in doubt_scores(data).items():
        cells = []
        for share in shares:
            got, unflagged = at_share(data, score, share)
            cells.append(f"{100 * got:5.2f}/{unflagged:<3}")
        print(f"  {name:<40} {' '.join(cells)}")
    if "match_ms" in data:
        ms = np.array([data["match_ms"][photo_ids(data) == p][0] for p in np.unique(photo_ids(data))])
        per = data["match_ms"] / data["grid"] ** 2
        print(
            f"  matcher on every square: {np.median(ms):.0f} ms per photo (median), "
            f"{np.median(per):.1f} ms a square"
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
    if {"sharpness", "lab_b"} <= set(data):
        photo_report(data)
    frontier_report(data)
    resolved_report(data)
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
