"""The behaviour every Granite 3 input processor shares, run once per Granite 3 release.

The checks are the public testing kit's
:class:`granite_formatters.testing.granite3.Granite3InputContractTests`, the same class a
third-party Granite 3 plugin subclasses; here one subclass is made per bundled Granite 3
release of the release table. The golden prompts (``tests/golden/granite3/``) were
rendered from the official templates by ``tests/make_goldens.py``, and the reference
template is read through :mod:`support.oracle` (skipped without ``shared/``, failed in
CI). What is specific to one release is in ``test_input.py`` (rows in
``support/input_cases.py``).
"""

from __future__ import annotations

from granite_formatters.testing.granite3 import Granite3InputContractTests

from support import oracle
from support.golden import release_cases
from support.per_release import release_classes
from support.release_data import release_declaration
from support.releases import Release


def _contract(entry: Release) -> type:
    class Contract(Granite3InputContractTests):
        release = release_declaration(entry.version)
        model_id = entry.model
        golden_cases = release_cases(entry)

        def reference_template(self) -> str:
            return oracle.template_text(entry.version)

    return Contract


globals().update(release_classes("TestInputContract", "controls", _contract, __name__))
