#!/usr/bin/python3
"""Plots the Green-Ampt benchmark (build/green_ampt --csv FILE): cumulative infiltration
F(t), the wetting front's depth, and F's difference from the Green-Ampt law.

    postproc/plot_green_ampt.py main.csv [other.csv ...] -o green_ampt.png

The first file is drawn bold; the others (other S' or cell sizes) thin, labelled from the
comment line the benchmark writes at the top of each file.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read_run(path):
    """The samples of one run (columns by name) and its label from the comment line."""
    with open(path) as f:
        settings = dict(item.split("=") for item in f.readline().lstrip("# ").split())
    data = np.genfromtxt(path, delimiter=",", names=True, skip_header=1)
    label = "S' = %.2f, cell %.1f cm" % (
        float(settings["ideal_saturation"]), 100 * float(settings["cell"]))
    return data, label


def plot(runs, output):
    fig, (ax_f, ax_front, ax_diff) = plt.subplots(1, 3, figsize=(15, 4.5))
    hours = lambda d: d["t_s"] / 3600  # noqa: E731
    reference = runs[0][0]
    ax_f.plot(hours(reference), 100 * reference["F_green_ampt_m"], "k--", lw=2,
              label="Green-Ampt")
    ax_front.plot(hours(reference), 100 * reference["front_green_ampt_m"], "k--", lw=2,
                  label="Green-Ampt, F / dtheta")
    for index, (data, label) in enumerate(runs):
        width = 2.5 if index == 0 else 1
        ax_f.plot(hours(data), 100 * data["F_model_m"], lw=width, label=label)
        ax_front.plot(hours(data), 100 * data["front_model_m"], lw=width, label=label)
        difference = 100 * (data["F_model_m"] / data["F_green_ampt_m"] - 1)
        ax_diff.plot(hours(data), difference, lw=width, label=label)
    ax_diff.axhspan(-15, 15, color="green", alpha=0.08, label="within 15%")
    ax_diff.axhline(0, color="k", lw=0.5)
    ax_f.set(xlabel="t [h]", ylabel="cumulative infiltration F [cm]",
             title="Ponded infiltration into dry sand")
    ax_front.set(xlabel="t [h]", ylabel="wetting front depth [cm]",
                 title="Front: model S = 1/2 level")
    ax_front.invert_yaxis()
    ax_diff.set(xlabel="t [h]", ylabel="F / F_Green-Ampt - 1 [%]",
                title="Difference from Green-Ampt")
    for ax in (ax_f, ax_front, ax_diff):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(output, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="files written by green_ampt --csv")
    parser.add_argument("-o", "--output", default="green_ampt.png")
    args = parser.parse_args()
    plot([read_run(path) for path in args.csv], args.output)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
