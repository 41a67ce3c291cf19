"""The ``kingdomino`` command line: one entry point, one sub-command per job.

Each sub-command lives next to the code it drives and is imported only when used, so that
``kingdomino score`` starts fast and never loads OpenCV or the model. Training and evaluation sit above the
run-time and are not in the wheel: a clone runs them as ``python -m model.training`` and
``python -m model.evaluation`` (docs/architecture.md).
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
}


def _usage() -> str:
    lines = ["usage: kingdomino COMMAND [ARGS]  |  kingdomino --version", "", "commands:"]
    lines += [f"  {name:<10} {help_text}" for name, (_, _, help_text) in COMMANDS.items()]
    lines += ["", "Run 'kingdomino COMMAND --help' for the options of a command."]
    lines += ["In a clone: python -m model.training (train), python -m model.evaluation (cross-validate)."]
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
    function = getattr(importlib.import_module(module_name), function_name)
    return int(function(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
