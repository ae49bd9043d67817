"""Reading an HTML report: its elements, texts and numbers, and the check
that it is self-contained."""

import json
import re
from html.parser import HTMLParser


class Page(HTMLParser):
    """What a test reads of a page: every element with its attributes, the
    text of each element with an id, the numbers' cells, the figures."""

    def __init__(self, html):
        super().__init__()
        self.elements, self.text, self.values, self.figures = [], {}, {}, []
        self._open = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if "data-key" in attrs:
            self.values[attrs["data-key"]] = json.loads(attrs["data-value"])
        if tag == "figure":
            self.figures.append(attrs)
        self._open.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for element_id in self._open:
            if element_id:
                self.text[element_id] = self.text.get(element_id, "") + data

    def column_figures(self):
        return [f["data-column"] for f in self.figures if f.get("class") == "column"]


def self_contained(html):
    """The page of ``html``, asserted to have no script, no external
    reference and no element that loads anything."""
    page = Page(html)
    tags = {tag for tag, _ in page.elements}
    assert not tags & {"script", "img", "link", "iframe", "object", "embed"}
    assert not any("src" in attrs or "href" in attrs for _, attrs in page.elements)
    assert not re.search(r"https?:|url\(|@import", html, re.IGNORECASE)
    return page
