"""The kingdom model and its two board formats (text and JSON), including every parse error."""

from __future__ import annotations

import json

import pytest

from kingdomino.board import (
    CASTLE_SQUARE,
    EMPTY_SQUARE,
    BoardFormatError,
    Kingdom,
    Square,
    Terrain,
)

SAMPLE_TEXT = """\
G0 L0 F0 F0 F0
G0 F0 F1 F1 G0
G1 S2 C  F0 G0
.  S0 L0 G2 G1
F0 L1 L0 G0 W0
"""


def test_text_board_is_read_row_by_row() -> None:
    kingdom = Kingdom.from_text(SAMPLE_TEXT)
    assert kingdom.grid_size == 5
    assert kingdom[(0, 0)] == Square(Terrain.GRASSLAND, 0)
    assert kingdom[(1, 2)] == Square(Terrain.FOREST, 1)
    assert kingdom[(2, 1)] == Square(Terrain.SWAMP, 2)
    assert kingdom[(2, 2)] == CASTLE_SQUARE
    assert kingdom[(3, 0)] == EMPTY_SQUARE
    assert kingdom[(4, 4)] == Square(Terrain.WHEAT, 0)


def test_letters_are_case_insensitive_comments_and_blank_lines_ignored() -> None:
    text = "# my kingdom\n\nw1 m3  # top row\nc  .\n"
    kingdom = Kingdom.from_text(text)
    assert kingdom.squares == (
        (Square(Terrain.WHEAT, 1), Square(Terrain.MINE, 3)),
        (CASTLE_SQUARE, EMPTY_SQUARE),
    )


def test_missing_crown_digit_means_no_crown() -> None:
    assert Kingdom.from_text("W C\n. L\n")[(0, 0)] == Square(Terrain.WHEAT, 0)


def test_text_and_json_round_trip() -> None:
    kingdom = Kingdom.from_text(SAMPLE_TEXT)
    assert Kingdom.from_text(kingdom.to_text()) == kingdom
    assert Kingdom.from_dict(json.loads(json.dumps(kingdom.to_dict()))) == kingdom
    assert Kingdom.parse(kingdom.to_text()) == kingdom
    assert Kingdom.parse(json.dumps(kingdom.to_dict())) == kingdom


def test_json_format_matches_the_documented_shape() -> None:
    data = Kingdom.from_text("G0 C\n. S2\n").to_dict()
    assert data == {
        "grid_size": 2,
        "squares": [
            [{"terrain": "grassland", "crowns": 0}, {"terrain": "castle", "crowns": 0}],
            [{"terrain": "empty", "crowns": 0}, {"terrain": "swamp", "crowns": 2}],
        ],
    }


def test_seven_by_seven_mighty_duel_frame_is_accepted() -> None:
    kingdom = Kingdom.from_text("\n".join([" ".join(["W0"] * 7)] * 7))
    assert kingdom.grid_size == 7


def test_empty_frame_has_the_castle_in_the_middle() -> None:
    for size in (5, 7):
        kingdom = Kingdom.empty(size)
        middle = size // 2
        assert kingdom[(middle, middle)] == CASTLE_SQUARE
        assert sum(1 for _, square in kingdom.cells() if square == EMPTY_SQUARE) == size * size - 1


def test_replace_returns_a_new_kingdom_and_keeps_the_old_one() -> None:
    kingdom = Kingdom.empty(5)
    changed = kingdom.replace((0, 0), Square(Terrain.MINE, 3))
    assert changed[(0, 0)] == Square(Terrain.MINE, 3)
    assert kingdom[(0, 0)] == EMPTY_SQUARE


def test_square_tokens() -> None:
    assert Square(Terrain.GRASSLAND, 2).token == "G2"
    assert CASTLE_SQUARE.token == "C"
    assert EMPTY_SQUARE.token == "."


def test_castle_and_empty_accept_a_zero_digit() -> None:
    assert Kingdom.from_text("C0 .0\nW0 W0\n")[(0, 0)] == CASTLE_SQUARE


def test_byte_order_mark_is_ignored() -> None:
    assert Kingdom.parse("\ufeffW0 C\nW0 W0\n").grid_size == 2


@pytest.mark.parametrize(
    ("text", "line", "token", "words"),
    [
        ("G0 X1\nG0 G0\n", 1, "X1", "unknown square"),
        ("G0 G0\nG0 Q\n", 2, "Q", "unknown square"),
        ("G0 W4\nG0 G0\n", 1, "W4", "crowns out of range"),
        ("G0 W12\nG0 G0\n", 1, "W12", "bad crown count"),
        ("G0 Wx\nG0 G0\n", 1, "Wx", "bad crown count"),
        ("C1 G0\nG0 G0\n", 1, "C1", "cannot carry crowns"),
        ("G0 .2\nG0 G0\n", 1, ".2", "cannot carry crowns"),
        ("G0 G0\nG0\n", 2, "G0", "ragged rows"),
        ("\n\n# comment\nG0 G0\nG0 G0 G0\n", 5, "G0 G0 G0", "ragged rows"),
        (" ".join(["W0"] * 8) + "\n", 1, "W0", "at most 7"),
    ],
)
def test_bad_text_names_line_and_token(text: str, line: int, token: str, words: str) -> None:
    with pytest.raises(BoardFormatError) as caught:
        Kingdom.parse(text)
    error = caught.value
    assert error.line == line
    assert error.token == token
    assert words in str(error)
    assert f"line {line}" in str(error)
    assert "\n" not in str(error)


def test_more_than_seven_rows_is_refused() -> None:
    with pytest.raises(BoardFormatError, match="line 8: more than 7 rows"):
        Kingdom.from_text("\n".join([" ".join(["W0"] * 7)] * 8))


def test_rows_must_form_a_square() -> None:
    with pytest.raises(BoardFormatError, match="line 2: the board has 2 rows of 3 squares"):
        Kingdom.from_text("W0 W0 W0\nW0 W0 W0\n")


@pytest.mark.parametrize("text", ["", "   \n\n", "# only a comment\n"])
def test_empty_board_is_refused(text: str) -> None:
    with pytest.raises(BoardFormatError, match="empty"):
        Kingdom.parse(text)


def test_long_tokens_are_cut_short_in_messages() -> None:
    with pytest.raises(BoardFormatError) as caught:
        Kingdom.parse("Z" * 500)
    assert len(str(caught.value)) < 120


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"squares": [', "invalid JSON"),
        ("[1, 2]", 'must be an object with "squares"'),
        ('{"grid": []}', 'must be an object with "squares"'),
        ('{"squares": 5}', "must be a list of rows"),
        ('{"squares": []}', "no squares"),
        ('{"squares": [[1]]}', "row 1, column 1: square must be an object"),
        ('{"squares": [[{"terrain": "lava", "crowns": 0}]]}', "unknown terrain 'lava'"),
        ('{"squares": [[{"terrain": "wheat", "crowns": 4}]]}', "crowns must be a whole number 0-3"),
        ('{"squares": [[{"terrain": "wheat", "crowns": 1.5}]]}', "crowns must be a whole number 0-3"),
        ('{"squares": [[{"terrain": "wheat", "crowns": true}]]}', "crowns must be a whole number 0-3"),
        ('{"squares": [[{"terrain": "castle", "crowns": 1}]]}', "castle square cannot carry crowns"),
        ('{"grid_size": 5, "squares": [[{"terrain": "wheat", "crowns": 0}]]}', "grid_size says 5"),
        (
            '{"squares": [[{"terrain": "wheat"}, {"terrain": "wheat"}], [{"terrain": "wheat"}]]}',
            "row 2 has 1",
        ),
        ("[" * 50_000, "nested too deeply"),
        ('{"squares": [[{"terrain": "wheat", "crowns": 1' + "0" * 5000 + "}]]}", "number far too long"),
    ],
)
def test_bad_json_is_refused_with_a_one_line_reason(text: str, words: str) -> None:
    with pytest.raises(BoardFormatError) as caught:
        Kingdom.parse(text)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_json_syntax_error_names_the_line() -> None:
    with pytest.raises(BoardFormatError, match="line 3: invalid JSON"):
        Kingdom.parse('{\n"squares":\n[[}\n')


def test_json_with_eight_rows_is_refused() -> None:
    row = [{"terrain": "wheat", "crowns": 0}] * 8
    with pytest.raises(BoardFormatError, match="at most 7"):
        Kingdom.parse(json.dumps({"squares": [row] * 8}))


def test_json_terrain_names_are_case_insensitive() -> None:
    kingdom = Kingdom.parse('{"squares": [[{"terrain": "Castle", "crowns": 0}]]}')
    assert kingdom[(0, 0)] == CASTLE_SQUARE


def test_square_refuses_crowns_out_of_range() -> None:
    with pytest.raises(BoardFormatError):
        Square(Terrain.MINE, 4)
    with pytest.raises(BoardFormatError):
        Square(Terrain.MINE, -1)
