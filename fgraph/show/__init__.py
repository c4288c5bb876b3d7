"""Seeing graphs: text listings, drawings and HTML reports.

- :mod:`.listing`: ``fgraph.describe(g)``, one line a node (``print(g)``);
- :mod:`.draw`: ``fgraph.draw(g, "g.svg")``, DOT / SVG / PNG pictures;
- :mod:`.arena_svg`: a memory plan as an SVG timeline;
- :mod:`.kernel_source`: the code generated for a fused node (C or a ufunc chain);
- :mod:`.report`: ``fgraph.report(exe, "report.html")``, one self-contained page;
- :mod:`.browser`: headless Chromium, to check a page (tests) and screenshot it;
- :mod:`.demo`: ``python -m fgraph.show.demo [folder]`` writes an example report and its screenshot.

These sit on top of the layers (they read graphs, plans and programs and
change nothing), and load only when first used.
"""
