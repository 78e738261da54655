#!/usr/bin/env python3
"""warpcost plots: the figures a person would rather look at than read, drawn with matplotlib from
the tidy CSV that warpcost-analyze writes (one row per measured value), for each benchmark from the
run that swept it at the most points (the newest of equals).

    python3 analysis/plots.py results/warpcost.csv results/plots

Writes SVGs (without dates, so an unchanged CSV gives unchanged files). Without matplotlib it says
so and exits 0: the analysis around it still succeeds, and committed plots stay as they are.
"""
import glob
import importlib.util
import multiprocessing
import os
import sys

from plot_support import load

HERE = os.path.dirname(os.path.abspath(__file__))
_DRAW = None  # (draw_family, modules) for the forked workers of main()


def _draw_one(index):
    draw_family, modules = _DRAW
    return draw_family(modules[index])


def family_plot_modules():
    """Each family's plot module, analysis/<family>/plots.py, with a draw(rows, plt, save)."""
    modules = []
    for path in sorted(glob.glob(os.path.join(HERE, "*", "plots.py"))):
        name = "warpcost_plots_" + os.path.basename(os.path.dirname(path))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


def main(argv):
    if len(argv) != 3:
        print("usage: plots.py WARPCOST_CSV OUT_DIR", file=sys.stderr)
        return 2
    csv_path, out_dir = argv[1], argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plots: matplotlib is not installed here (python3 -c 'import matplotlib' fails); "
              "no plots drawn, the committed ones in " + out_dir + " are left as they are")
        return 0
    matplotlib.rcParams["svg.hashsalt"] = "warpcost"
    rows = load(csv_path)
    os.makedirs(out_dir, exist_ok=True)

    def draw_family(module):
        """The family's figures, as files in out_dir; their paths, in the order drawn."""
        written = []

        def save(fig, name, run):
            fig.text(0.99, 0.005, "run " + run, ha="right", va="bottom", fontsize=7)
            path = os.path.join(out_dir, name)
            fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
            plt.close(fig)
            written.append(path)

        module.draw(rows, plt, save)
        return written

    modules = family_plot_modules()
    # The families draw at once, one process each (forked: each starts with the rows read once
    # here); an SVG does not depend on which process drew it. One core, or no fork: one by one.
    if (os.cpu_count() or 1) > 1 and len(modules) > 1 and "fork" in multiprocessing.get_all_start_methods():
        global _DRAW
        _DRAW = (draw_family, modules)
        with multiprocessing.get_context("fork").Pool(min(len(modules), os.cpu_count())) as pool:
            per_family = pool.map(_draw_one, range(len(modules)))
    else:
        per_family = [draw_family(m) for m in modules]
    written = [path for paths in per_family for path in paths]

    for path in written:
        print("wrote " + path)
    if not written:
        print("plots: no family in " + csv_path + " has data to plot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
