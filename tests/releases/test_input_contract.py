"""The behaviour every Granite 3 input processor shares, run once per Granite 3 release.

The tests are :class:`support.granite3_input_contract.InputProcessorContract`; the golden
prompts (``tests/golden/granite3/``) were rendered from the official templates by
``tests/make_goldens.py``. What is specific to one release is in
``test_granite32_input.py`` and ``test_granite33_input.py``.
"""

from __future__ import annotations

import pytest

from support.golden import ReleaseFolder
from support.granite3_input_contract import InputProcessorContract
from support.release_data import input_processor_class
from support.releases import Release

FAMILY = "granite3"


class TestInputContract(InputProcessorContract):
    @pytest.fixture(autouse=True)
    def _bind_release(self, release: Release) -> None:
        # The contract reads its release from these attributes (per instance, so the
        # parameters of one release never leak into another's).
        vars(self).update(
            processor_class=input_processor_class(release.version),
            release=release.version,
            golden_dir=ReleaseFolder(release.family, release.version),
            model_id=release.model,
        )
