#!/usr/bin/python3
"""Every relative link in the repository's documentation names a file or folder that exists: docs/ (the kept reports
among them), README.md, patches/**/README.md and integration-tests/**/README.md.

    test_links.py [--trx FILE]     (run by scripts/test)
"""
import pathlib
import re
import sys
import tempfile
import unittest

import unittest_trx

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = ["docs/**/*.md", "README.md", "patches/**/README.md", "integration-tests/**/README*.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def broken_links(root, patterns=DOCUMENTS):
    """(document, target) for each relative link whose file does not exist; URLs and anchors in the page are not files."""
    broken = []
    # The repository's own pages: not those of installed packages (npm's node_modules) or of build output.
    documents = {path for pattern in patterns for path in root.glob(pattern)
                 if not {"node_modules", "artifacts"} & set(path.relative_to(root).parts)}
    for document in sorted(documents):
        text = re.sub(r"```.*?```", "", document.read_text(), flags=re.S)
        for target in LINK.findall(text):
            file = target.split("#")[0]
            if file and not re.match(r"[a-z]+:", file) and not (document.parent / file).exists():
                broken.append((str(document.relative_to(root)), target))
    return broken


class Links(unittest.TestCase):
    def test_the_checker_finds_a_missing_file_and_passes_urls_anchors_and_existing_files(self):
        with tempfile.TemporaryDirectory() as temp:
            root = pathlib.Path(temp)
            (root / "docs" / "results").mkdir(parents=True)
            (root / "docs" / "results" / "report.md").write_text("[csv](../counters/a.csv)")
            (root / "integration-tests" / "node_modules" / "q").mkdir(parents=True)
            (root / "integration-tests" / "node_modules" / "q" / "README.md").write_text("[a package's own](x.md)")
            (root / "README.md").write_text("[r](docs/results/report.md#targets) [u](https://example.org/x) [a](#top) "
                                            "[d](docs/) [gone](docs/gone.md)\n```\n[in a code block](nothing.md)\n```\n")
            self.assertEqual([("README.md", "docs/gone.md"), ("docs/results/report.md", "../counters/a.csv")],
                             broken_links(root))

    def test_every_relative_link_of_the_documentation_resolves(self):
        self.assertEqual([], broken_links(REPO))


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "report-links", sys.argv[1:]))
