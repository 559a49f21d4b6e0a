"""The notebook runs top to bottom (at a small size) through the public API."""

from pathlib import Path

import pytest

from helpers import needs_jit

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "difficulty.ipynb"


@pytest.mark.integration
@needs_jit
def test_difficulty_notebook_executes(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("CANFIELD_NB_DEALS", "12")
    monkeypatch.setenv("CANFIELD_NB_SECONDS", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "canfield: 12 deals" in text and "seed 2:" in text
    # Every figure is drawn by Jupyter's inline backend: one PNG per plotting cell.
    figure_cells = [c for c in nb.cells if c.cell_type == "code" and "plt.subplots" in c.source]
    assert len(figure_cells) == 3
    for c in figure_cells:
        assert any("image/png" in o.get("data", {}) for o in c.outputs), c.source[:60]
    # The replay pages render inline: two games shown, and a position drawn as the last value of a cell.
    pages = [o for o in outputs if "<iframe" in o.get("data", {}).get("text/html", "")]
    assert len(pages) == 3
    # Values print as what a person needs (a deal as the call that makes it again).
    assert "Deal.from_seed(2, 'canfield')" in text and "SolveResult('solved'" in text
    assert "12 moves made" in text


def test_committed_notebook_shows_its_outputs():
    """The notebook in the repository holds its figures and pages, so it reads on a code host without running."""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3
    assert "matplotlib.use" not in "".join(c.source for c in nb.cells)


WIN_RATES = NOTEBOOK.parent / "win-rates.ipynb"


@pytest.mark.integration
def test_win_rates_notebook_executes_on_the_committed_dataset():
    """The win-rate notebook searches nothing: it recounts the committed study results and draws them."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("pyarrow")
    nb = nbformat.read(WIN_RATES, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(WIN_RATES.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "canfield " in text and "estimate" in text
    figure_cells = [c for c in nb.cells if c.cell_type == "code" and "plt.subplots" in c.source]
    assert len(figure_cells) == 4
    for c in figure_cells:
        assert any("image/png" in o.get("data", {}) for o in c.outputs), c.source[:60]


def test_committed_win_rates_notebook_shows_its_figures():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(WIN_RATES, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 4
    assert not [o for o in outputs if o.output_type == "error"]
