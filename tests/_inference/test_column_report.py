"""The column report type (skmmd/_inference/_column_report.py): it owns its
correction, alpha, flag and verb through selections, sorts, ``assign`` and
pickling; a plain DataFrame becomes one only with its meaning recorded."""

import pickle

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="the column report is a DataFrame")


@pytest.fixture(scope="module")
def reports():
    from skmmd import hsic_test, mmd_test

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 4)), rng.normal(size=(300, 4))
    Y[:, 2] += 1.0
    y = X[:, 1] + 0.3 * rng.normal(size=300)
    options = {"explain_columns": True, "n_resamples": 199, "random_state": 0}
    return (
        mmd_test(X, Y, correction="fdr", **options).column_report,
        hsic_test(X, y, **options).column_report,
    )


def test_each_family_s_report_says_what_it_means(reports):
    from skmmd.inspection import ColumnReport

    two_sample, independence = reports
    assert isinstance(two_sample, ColumnReport)
    assert (two_sample.correction, two_sample.flag, two_sample.verb) == (
        "fdr",
        "moved",
        "moved",
    )
    assert (independence.correction, independence.flag, independence.verb) == (
        "fwer",
        "depends",
        "depend on y",
    )
    assert two_sample.alpha == independence.alpha == 0.05
    assert two_sample.column[two_sample.flagged()].tolist() == ["2"]
    assert independence.column[independence.flagged()].tolist() == ["1"]
    assert two_sample.count_text().startswith("1 of 4 columns moved at alpha = 0.05")
    assert "depend on y" in independence.count_text()
    # At another level, the adjusted p-values decide.
    assert two_sample.flagged(alpha=1.0).all()
    assert two_sample.decision_p_value is not None
    assert 0 < two_sample.maxt_p_value <= 1 and two_sample.n_resamples_used == 199


def test_selections_sorts_assign_and_pickles_keep_the_meaning(reports):
    from skmmd.inspection import ColumnReport

    report = reports[0]
    for kept in (
        report[report.moved],
        report.sort_values("z"),
        report.assign(column=[f"c{c}" for c in report.column]),
        pickle.loads(pickle.dumps(report)),
    ):
        assert isinstance(kept, ColumnReport)
        assert (kept.correction, kept.alpha, kept.verb) == ("fdr", 0.05, "moved")
    frame = report.to_frame()
    assert type(frame) is pd.DataFrame and frame.attrs["correction"] == "fdr"
    pd.testing.assert_frame_equal(frame, pd.DataFrame(report))


def test_a_plain_dataframe_is_a_report_only_with_its_meaning(reports):
    from skmmd.inspection import ColumnReport

    plain = reports[0].to_frame()
    assert ColumnReport.of(plain).verb == "moved"
    bare = pd.DataFrame(plain)
    bare.attrs = {"correction": "fwer"}
    with pytest.raises(ValueError, match=r"lacks \['alpha', 'flag', 'verb'"):
        ColumnReport.of(bare)


def test_a_report_read_back_from_parquet_is_a_report_again(reports, tmp_path):
    pytest.importorskip("pyarrow", reason="Parquet files need pyarrow")
    from skmmd.inspection import ColumnReport

    path = tmp_path / "report.parquet"
    reports[1].to_parquet(path)
    back = ColumnReport.of(pd.read_parquet(path))
    assert back.count_text() == reports[1].count_text()
    np.testing.assert_array_equal(back.flagged(), reports[1].flagged())
