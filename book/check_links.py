#!/usr/bin/env python3
"""Checks the documentation's relative links; prints file:line and the bad link, exits 1.

- The built book (book/book/**/*.html): every relative `href` and `src` leads to a file of
  the built book, and every `#anchor` (on this page or another) to an element's `id` there.
- The Markdown the repository shows (README.md, */README.md, docs/*.md, */docs/*.md,
  book/src/*.md): every relative link leads to an existing file or directory, and every
  `#anchor` into a Markdown file to one of its headings (GitHub's heading ids).

Links with a scheme (https:, mailto:) are not fetched. In Markdown, a target without `/`,
`.` or `#` (`crate::tool`, `Executor`) is a rustdoc intra-doc link, not a file: rustdoc
checks those (`cargo doc` with `-D warnings`).

Usage: book/check_links.py [REPOSITORY_ROOT]   (default: the directory above this script)
"""

import html.parser
import os
import re
import sys
import urllib.parse

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
BUILT = os.path.join(ROOT, "book", "book")

errors = []


def error(path, line, message):
    errors.append(f"{os.path.relpath(path, ROOT)}:{line}: {message}")


# ---- the built book ----

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (line, url)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append((self.getpos()[0], value))


def parse_page(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def check_book():
    if not os.path.isdir(BUILT):
        error(BUILT, 0, "the book is not built (run `mdbook build book` first)")
        return
    pages = {}
    for directory, _, files in os.walk(BUILT):
        for name in files:
            # 404.html resolves its links against the site's root (`<base href="/">`).
            if name.endswith(".html") and name != "404.html":
                path = os.path.join(directory, name)
                pages[os.path.normpath(path)] = parse_page(path)
    for path, page in sorted(pages.items()):
        for line, url in page.links:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme or url.startswith("/"):
                continue
            if parts.path:
                target = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(parts.path)))
                if not target.startswith(BUILT + os.sep) and target != BUILT:
                    error(path, line, f"`{url}` leads out of the built book")
                    continue
                if os.path.isdir(target):
                    target = os.path.join(target, "index.html")
                if not os.path.exists(target):
                    error(path, line, f"`{url}`: no file {os.path.relpath(target, ROOT)}")
                    continue
            else:
                target = path
            if parts.fragment and target.endswith(".html"):
                ids = pages[os.path.normpath(target)].ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    error(path, line, f"`{url}`: no `#{parts.fragment}` in {os.path.relpath(target, ROOT)}")


# ---- Markdown ----

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def github_id(text):
    """The id GitHub gives a heading: lower case, no punctuation but - and _, spaces to -."""
    text = re.sub(r"<[^>]+>", "", text)                       # inline HTML
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)      # links: their text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def markdown_lines(path):
    """(line number, text) of the lines outside fenced code blocks, inline code removed."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            match = re.match(r"(`{3,}|~{3,})", stripped)
            if match:
                if fence is None:
                    fence = match.group(1)
                    continue
                if stripped.startswith(fence):
                    fence = None
                    continue
            if fence is None:
                yield number, line.rstrip("\n")


def heading_ids(path):
    ids, seen = set(), {}
    for _, line in markdown_lines(path):
        match = HEADING.match(line)
        if match:
            base = github_id(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            ids.add(base if count == 0 else f"{base}-{count}")
    return ids


def is_intra_doc(target):
    return "/" not in target and "." not in target and not target.startswith("#")


def check_markdown(path):
    for number, line in markdown_lines(path):
        text = re.sub(r"`[^`]*`", "``", line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(text)]
        ref = REFERENCE_DEF.match(text)
        if ref:
            targets.append(ref.group(1))
        for url in targets:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue
            if is_intra_doc(url.split("#")[0]) and parts.path:
                continue
            target = path
            if parts.path:
                target = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(parts.path)))
                if not os.path.exists(target):
                    error(path, number, f"`{url}`: no file {os.path.relpath(target, ROOT)}")
                    continue
            if parts.fragment and target.endswith(".md"):
                if parts.fragment not in heading_ids(target):
                    error(path, number, f"`{url}`: no heading `#{parts.fragment}` in {os.path.relpath(target, ROOT)}")


def markdown_files():
    found = [os.path.join(ROOT, "README.md")]
    for entry in sorted(os.listdir(ROOT)):
        directory = os.path.join(ROOT, entry)
        if not os.path.isdir(directory) or entry.startswith(".") or entry == "target":
            continue
        if os.path.isfile(os.path.join(directory, "README.md")):
            found.append(os.path.join(directory, "README.md"))
        docs = os.path.join(directory, "docs") if entry != "docs" else directory
        if os.path.isdir(docs):
            found += [os.path.join(docs, n) for n in sorted(os.listdir(docs)) if n.endswith(".md")]
    source = os.path.join(ROOT, "book", "src")
    found += [os.path.join(source, n) for n in sorted(os.listdir(source)) if n.endswith(".md")]
    return found


def main():
    check_book()
    files = markdown_files()
    for path in files:
        check_markdown(path)
    for message in errors:
        print(message, file=sys.stderr)
    if errors:
        print(f"{len(errors)} broken link(s)", file=sys.stderr)
        return 1
    print(f"links: the built book and {len(files)} Markdown files checked, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main())
