"""The weights of the reproduce progress bar (qtheory.report.reproduce.step_weights):
measured seconds per step, the median for a step not measured."""

from qtheory.report import reproduce, step_costs


def test_weights_are_the_measured_seconds_and_the_median_otherwise(monkeypatch):
    table = {"standard": {"a": 10.0, "b": 1.0, "c": 4.0}}
    monkeypatch.setattr(step_costs, "STEP_SECONDS", table)
    assert reproduce.step_weights(["a", "b", "new"], "standard") == [10.0, 1.0, 4.0]
    assert reproduce.step_weights(["a"], "paper") == [1.0]  # no size measured: equal


def test_every_step_of_every_measured_size_exists():
    """The shipped table names only steps that the models still yield (a renamed step
    would silently weigh the median)."""
    import importlib

    from qtheory.report.run import Run

    for size in step_costs.STEP_SECONDS:
        run = Run("unused", quick=size == "quick", paper=size == "paper")
        names = {
            name
            for model in reproduce.MODELS
            for name, _ in importlib.import_module(model).steps(run)
        }
        assert set(step_costs.STEP_SECONDS[size]) <= names, size
