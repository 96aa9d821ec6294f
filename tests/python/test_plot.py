# SPDX-License-Identifier: GPL-3.0-or-later
# handsim.plot (issue 22, item 8): a figure of a run's recorded signals drawn by the shared plot
# library is the file handsim-cli simulate --plot writes for the same run, byte for byte (SVG),
# for a list of signals and for the seed000 preset; bad requests raise ValueError. Skipped when
# the module was built without the plot library (no Qt: -DHANDSIM_BUILD_GUI=OFF).
import subprocess

import pytest

import handsim

SIGNALS = ["F3.J2.torque", "F3.J3.torque", "F3.J2.angle"]


@pytest.fixture(scope="module")
def breakaway(scenarios):
    path = scenarios / "barrett_breakaway_cube.json"
    run = handsim.Run.from_scenario(handsim.load_scenario(str(path)))
    run.run_to_end()
    return path, run


def plot_or_skip(*args, **kwargs):
    try:
        handsim.plot(*args, **kwargs)
    except RuntimeError as e:
        if "without the plot library" in str(e):
            pytest.skip(str(e))
        raise


def test_python_svg_is_the_cli_svg(breakaway, cli, tmp_path):
    path, run = breakaway
    hand = handsim.load_hand("barrett")
    # The CLI titles a --signals figure "<hand name> - <scenario file>".
    plot_or_skip(run, str(tmp_path / "py.svg"), signals=SIGNALS,
                 title=f"{hand.name} - {path.name}")
    result = subprocess.run([cli, "simulate", str(path), "--plot", str(tmp_path / "cli.svg"),
                             "--signals", ",".join(SIGNALS), "--quiet"], capture_output=True,
                            text=True)
    if "--plot" in result.stderr and result.returncode != 0:
        pytest.skip("this handsim-cli has no --plot: " + result.stderr.strip())
    assert result.returncode == 0, result.stderr
    cli_svg = (tmp_path / "cli.svg").read_bytes()
    assert cli_svg.startswith(b"<?xml") or b"<svg" in cli_svg[:400]
    assert (tmp_path / "py.svg").read_bytes() == cli_svg
    # Other signals draw another figure: the comparison can fail.
    plot_or_skip(run, str(tmp_path / "other.svg"), signals=SIGNALS[:2],
                 title=f"{hand.name} - {path.name}")
    assert (tmp_path / "other.svg").read_bytes() != cli_svg


def test_the_preset_and_other_formats(breakaway, cli, tmp_path):
    path, run = breakaway
    plot_or_skip(run, str(tmp_path / "py.svg"), preset="seed000")
    subprocess.run([cli, "simulate", str(path), "--plot", str(tmp_path / "cli.svg"),
                    "--preset", "seed000", "--quiet"], check=True, capture_output=True)
    assert (tmp_path / "py.svg").read_bytes() == (tmp_path / "cli.svg").read_bytes()
    plot_or_skip(run, str(tmp_path / "f.png"), signals=SIGNALS[:1], size="single", dpi=100)
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plot_or_skip(run, str(tmp_path / "f.pdf"), signals=SIGNALS[:1])
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("kwargs, words", [
    ({"signals": ["F3.J2.torque", "no.such.column"]}, "no.such.column"),
    ({"signals": SIGNALS, "preset": "seed000"}, "not both"),
    ({}, "signals"),
    ({"preset": "seed001"}, "seed000"),
    ({"signals": SIGNALS, "size": "huge"}, ""),
    ({"signals": SIGNALS, "dpi": 10}, "dpi"),
])
def test_bad_requests_raise_value_errors(breakaway, tmp_path, kwargs, words):
    _, run = breakaway
    with pytest.raises(ValueError) as e:
        plot_or_skip(run, str(tmp_path / "f.svg"), **kwargs)
    assert words in str(e.value)
    with pytest.raises(ValueError, match="svg"):
        plot_or_skip(run, str(tmp_path / "f.txt"), signals=SIGNALS)
