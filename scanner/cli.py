"""The ``kingdomino`` command line: one entry point, one sub-command per job.

Each sub-command lives next to the code it drives and is imported only when used, so that
``kingdomino score`` starts fast and never loads OpenCV or the model.
"""

from __future__ import annotations

import importlib
import sys

#: sub-command -> (module, function, one-line help). Each function takes argv and returns an exit status.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "score": ("kingdomino.cli", "score_main", "score one board (text or JSON)"),
    "rank": ("kingdomino.cli", "rank_main", "rank a game: one board per player"),
    "scan": ("scanner.scan_cli", "scan_main", "read kingdoms from photos and score them"),
    "classify": ("scanner.classify_cli", "classify_main", "classify single-square images"),
    # training and evaluation need the repository's data/ and are not in the wheel: run them from a clone
    "train": ("model.training.train", "main", "train the square classifier from data/ (a clone)"),
    "evaluate": ("model.evaluation.evaluate", "main", "grouped cross-validation; rewrites model/MODEL.md"),
}


def _usage() -> str:
    lines = ["usage: kingdomino COMMAND [ARGS]  |  kingdomino --version", "", "commands:"]
    lines += [f"  {name:<10} {help_text}" for name, (_, _, help_text) in COMMANDS.items()]
    lines += ["", "Run 'kingdomino COMMAND --help' for the options of a command."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--version":
        from kingdomino import __version__

        print(f"kingdomino {__version__}")
        return 0
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        print(f"kingdomino: unknown command {command!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, function_name, _ = COMMANDS[command]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if not module_name.startswith("model."):
            raise
        print(
            f"kingdomino {command}: needs a clone of the repository ({error.name} is not installed)",
            file=sys.stderr,
        )
        return 2
    function = getattr(module, function_name)
    return int(function(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
