"""An outside check of the whole scanner: phone photos of kingdoms on tables, from a generator written
without ``benchmarks/scenes.py`` (harsher tables, tile thickness, clutter, light and camera effects). Written by
another person on 2026-12-04 as a throwaway check and kept so its figures can be reproduced; tuning the
scanner to it makes it less of an outside check. See docs/experiments.md for what it found."""
