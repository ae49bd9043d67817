"""Online drift detection: a stream of windows against a reference sample.

:class:`OnlineMMDDetector` (``_detector``) calibrates its thresholds for an
expected run time between false alarms on simulated null streams
(``_thresholds``); its per-window statistics and the run-length simulation
are compiled with numba (``_numba``).
"""

from ._detector import OnlineDriftResult, OnlineMMDDetector

__all__ = ["OnlineDriftResult", "OnlineMMDDetector"]
