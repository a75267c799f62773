"""Structure checks of a rendered report (shared by the report tests and the CLI demo test)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

NUMBER = re.compile(r"^(—|nan|-?\d[\d.]*(e[+-]?\d+)?x?|-?\.\d+)$")


class _Tables(HTMLParser):
    """Collects every table (header cells, rows of (text, is-numeric, colspan)) and image."""

    def __init__(self):
        super().__init__()
        self.tables, self.images, self.h2 = [], [], []
        self._cell = None
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"class": a.get("class", ""), "header": [], "rows": [],
                                "groups": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
            if a.get("class") == "group":
                self.tables[-1]["groups"].append(len(self.tables[-1]["rows"]) - 1)
        elif tag in ("td", "th") and self.tables:
            self._cell = {"tag": tag, "text": "", "num": a.get("class") == "num",
                          "span": int(a.get("colspan", 1))}
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "h2":
            self._in_h2 = True
            self.h2.append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append(self._cell)
            self._cell = None
        elif tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        if self._in_h2:
            self.h2[-1] += data


def parse(html: str) -> _Tables:
    p = _Tables()
    p.feed(html)
    return p


def check_report_structure(html: str) -> _Tables:
    """Assert what every report must satisfy; returns the parsed tables for more checks."""
    p = parse(html)
    assert p.tables, "no tables"
    for t in p.tables:
        header, *body = t["rows"]
        width = sum(c["span"] for c in header)
        assert all(c["tag"] == "th" for c in header)
        for i, row in enumerate(body, start=1):
            assert sum(c["span"] for c in row) == width, (header, row)
            if i in t["groups"]:
                continue
            for h, c in zip(header, row):
                if h["num"]:  # a number column: a number (or '—') in every cell, never empty
                    assert c["num"] and NUMBER.match(c["text"].strip()), (h["text"], c["text"])
                elif c["num"]:  # a right-aligned cell holds a number, never words
                    assert NUMBER.match(c["text"].strip()), c["text"]
    for src in p.images:
        assert src.startswith("data:image/png;base64,") and len(src) > 200
    results = [t for t in p.tables if "results" in t["class"]]
    assert results, "no results table"
    summary = results[0]
    assert [c["text"] for c in summary["rows"][0]][:2] == ["model", "metric"]
    titles = [summary["rows"][i][0]["text"] for i in summary["groups"]]
    assert len(titles) == len(set(titles)), "a section appears twice in the summary"
    return p
