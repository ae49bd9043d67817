import numpy as np
import pytest

from skmmd.datasets import make_blobs_two_sample


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_blobs_geometry(epsilon):
    X, Y = make_blobs_two_sample(
        20000, n_samples_y=30000, epsilon=epsilon, random_state=0
    )
    assert X.shape == (20000, 2) and Y.shape == (30000, 2)
    for Z in (X, Y):
        centres = 10.0 * np.round(Z / 10.0)
        # Centres on the 5 x 5 grid, about equally often (each 1/25: 4% +- 0.5%).
        assert set(np.unique(centres)) <= {0.0, 10.0, 20.0, 30.0, 40.0}
        counts = np.unique(centres, axis=0, return_counts=True)[1] / len(Z)
        assert counts.size == 25 and np.all(np.abs(counts - 0.04) < 0.006)
    # Within-blob covariances: identity for P; eigenvalues 2/(eps+1) (1, 1) and
    # 2 eps/(eps+1) (1, -1) for Q, ratio eps. Rounding to the nearest centre
    # misassigns only points 5 sd away. 30000 points: sd of a variance ~0.01.
    cov_x = np.cov((X - 10.0 * np.round(X / 10.0)).T)
    cov_y = np.cov((Y - 10.0 * np.round(Y / 10.0)).T)
    np.testing.assert_allclose(cov_x, np.eye(2), atol=0.05)
    lam = np.linalg.eigvalsh(cov_y)
    assert lam[1] / lam[0] == pytest.approx(epsilon, rel=0.05)


def test_blobs_seeded_and_validated():
    a = make_blobs_two_sample(10, random_state=3)
    b = make_blobs_two_sample(10, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="'epsilon' parameter"):
        make_blobs_two_sample(10, epsilon=0.5)
