"""A third generator of whole-table phone photos, written without looking at the other two.

``benchmarks.blind.scene.generate(seed)`` renders one photo (JPEG bytes) and its truth; ``python -m
benchmarks.blind.run`` scans a seed range with the outside bench model and reports by condition class.
The kingdoms are legal games built from the box's dominoes, painted only with squares that the outside
bench model never learnt (``benchmarks.bench_model.outside_held_out``). Dev seeds from 300000, held-out
seeds from 700000.
"""
