"""The split protocol of both two-sample tests (``train_size``,
skmmd/two_sample/_base.py): the learned map never sees the rows it tests."""

from skmmd import LearnedFourierSampler, MMDTest, RandomFourierSampler
from skmmd.datasets import make_liu_blobs


def test_split_protocol_level():
    # Seeded fast version of bench_power's type-I experiment: the learned map
    # never sees the rows it tests, so the permutation p-value is valid.
    # 60 null draws at alpha = 0.1: P(Binomial(60, 0.1) >= 13) < 0.01.
    rejections = 0
    for seed in range(60):
        X, Y = make_liu_blobs(4, null=True, random_state=seed)
        test = MMDTest(
            LearnedFourierSampler(n_components=32, max_iter=10, random_state=seed),
            train_size=0.5,
            n_resamples=39,
            alpha=0.1,
            random_state=seed,
        ).fit(X, Y)
        assert test.n_train_ == 36
        assert test.n_samples_x_ + test.n_samples_y_ == 36
        rejections += test.reject_
    assert rejections < 13


def test_split_protocol_tests_only_the_rest():
    X, Y = make_liu_blobs(10, random_state=0)
    sampler = RandomFourierSampler(n_components=32, random_state=0)
    test = MMDTest(sampler, train_size=30, random_state=0).fit(X, Y)
    assert (test.n_samples_x_, test.n_samples_y_) == (75, 75)
    assert test.n_train_ == 30
    # Without train_size nothing changes: every row is tested.
    plain = MMDTest(sampler, random_state=0).fit(X, Y)
    assert (plain.n_samples_x_, plain.n_train_) == (90, 0)


def test_split_protocol_partial_fit_trains_on_the_first_chunk():
    X, Y = make_liu_blobs(20, random_state=0)
    test = MMDTest(
        LearnedFourierSampler(n_components=32, max_iter=5, random_state=0),
        train_size=0.5,
        n_resamples=19,
        random_state=0,
    )
    test.partial_fit(X[:60], Y[:60]).partial_fit(X[60:], Y[60:])
    assert test.n_train_ == 120
    assert test.n_samples_x_ == 120
    assert hasattr(test.transformer_, "criterion_")
