"""Reading sample files (skmmd/cli/_files.py): CSV with or without a
header, .npy, and the fast CSV parser against the checked one."""

import numpy as np
import pytest

from skmmd.__main__ import load_sample
from skmmd.cli import _files


def test_load_sample_csv_header_and_npy(sample_files):
    a, b, same = sample_files
    assert load_sample(a).shape == (60, 3)
    assert load_sample(b).shape == (70, 3)
    assert load_sample(same).shape == (50, 3)


@pytest.mark.parametrize(
    "text",
    [
        "1,2\n3,4\n",
        "u,v\n1,2\n\n3,4\n",  # a header, a blank line
        "\n\n1,2\n3,4",  # blank lines first, no final newline
        ",,\n1,2\n,\n3,4\n",  # rows of empty cells
        "1_0,2\n3, 4 \n",  # what float() reads and loadtxt does not
        "7\n8\n9\n",  # one column
        "u,v\n1,2\n",  # one row
    ],
)
def test_csv_fast_parser_reads_what_the_checked_one_reads(tmp_path, text):
    path = tmp_path / "x.csv"
    path.write_text(text)
    np.testing.assert_array_equal(
        _files._read_csv(path), _files._read_csv_checked(path)
    )
