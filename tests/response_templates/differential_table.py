"""The export differential as Markdown tables: per release, how many corpus outputs
transformers' ``parse_response`` (with the exported template) reads as our parser does,
how many differ as listed (with the reasons), and how many differ unlisted.

Run from the repository root with transformers installed (the ``transformers`` tox env):
``python tests/response_templates/differential_table.py``. It uses the code of
``test_response_template.py`` (corpus, expected differences, both parsers).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from response_templates import test_response_template as differential  # noqa: E402

from granite_formatters._export import response_template  # noqa: E402

from support.transformers_parse import ours, theirs  # noqa: E402


def main() -> None:
    print("| Release | Outputs | Agree | Expected difference | Unexpected |")
    print("| --- | --- | --- | --- | --- |")
    where: dict[str, list[str]] = {}
    for release in differential._INSTALLED:
        expected = differential.EXPECTED[release.version]
        template = response_template(release.model)
        counts = [0, 0, 0]
        for case in differential._cases(release):
            same = theirs(template, case) == ours(release.model, case)
            listed = case.name in expected
            if same != listed:
                counts[0 if same else 1] += 1
            else:
                counts[2] += 1
            if listed and not same:
                where.setdefault(expected[case.name], []).append(f"{release.version} {case.name}")
        print(f"| {release.version} | {sum(counts)} | " + " | ".join(map(str, counts)) + " |")
    print("\n| Reason | Where (release, corpus case) |\n| --- | --- |")
    for reason, cases in where.items():
        print(f"| {reason.replace('|', '&#124;')} | {', '.join(cases)} |")


if __name__ == "__main__":
    main()
