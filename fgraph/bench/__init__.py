"""Benchmarks: ``python -m fgraph.bench <name>``.  Figures are ratios measured
side by side in one run; results are printed and written to bench-results/."""
