#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Assertions on commdiag's HTML report, with nothing but the standard library
(tests/run_html.sh runs them on the page commdiag wrote and on the DOM Chromium dumps).

  html_check.py static FILE            the page is self-contained: no script, nothing to fetch
  html_check.py p2p FILE               h100-p2p.json's page: P2P cells, path classes, findings
  html_check.py netns FILE             netns-two-hosts.json's page: reach and host bandwidth
  html_check.py findings FILE DOC.json the findings table lists exactly DOC's findings
  html_check.py inject FILE NAME       NAME (a hostname full of markup) is text, never markup
  html_check.py text FILE              the visible text, one line per block (the DOM golden)
  html_check.py png FILE GOLDEN        same size, layout and colour areas as GOLDEN (see png())
Exit 0 when every assertion holds, 1 with one line per failure otherwise.
"""
import html.parser
import json
import re
import struct
import sys
import zlib

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


class Page(html.parser.HTMLParser):
    """Tables (caption, header row, body rows of cells with their attributes), the
    start tags seen, the title, and the visible text."""
    BLOCK = {"p", "div", "li", "tr", "h1", "h2", "h3", "caption", "dt", "dd", "pre", "summary", "title"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.tables, self.title, self.text = [], [], None, []
        self.stack, self.cell, self.in_title, self.skip = [], None, False, 0
        self.ids = {}
        self.open, self.misnested = [], []

    VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}

    def nest(self, tag, start):
        """Every element the page opens it closes, in order (the parser itself forgives)."""
        if tag in self.VOID:
            return
        if start:
            self.open.append(tag)
        elif not self.open or self.open[-1] != tag:
            self.misnested.append("</%s> closes <%s>" % (tag, self.open[-1] if self.open else "nothing"))
        else:
            self.open.pop()

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs, nest=False)
        self.handle_endtag(tag, nest=False)

    def handle_starttag(self, tag, attrs, nest=True):
        a = dict(attrs)
        if nest:
            self.nest(tag, True)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids[a["id"]] = tag
        if tag in ("style", "script"):
            self.skip += 1
        if tag == "title" and self.title is None:  # the page's, not an SVG's
            self.in_title, self.title = True, ""
        if tag == "table":
            self.stack.append({"caption": "", "rows": [], "attrs": a, "in_caption": False})
        elif tag == "caption" and self.stack:
            self.stack[-1]["in_caption"] = True
        elif tag == "tr" and self.stack:
            self.stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self.stack and self.stack[-1]["rows"]:
            self.cell = {"tag": tag, "attrs": a, "text": "", "v": None}
            self.stack[-1]["rows"][-1].append(self.cell)
        elif tag == "span" and self.cell is not None and a.get("class") == "v":
            self.cell["v"] = ""
        if tag in self.BLOCK or tag == "br":
            self.text.append("\n")

    def handle_endtag(self, tag, nest=True):
        if nest:
            self.nest(tag, False)
        if tag in ("style", "script"):
            self.skip -= 1
        if tag == "title":
            self.in_title = False
        if tag == "table" and self.stack:
            t = self.stack.pop()
            t["caption"] = " ".join(t["caption"].split())
            self.tables.append(t)
        elif tag == "caption" and self.stack:
            self.stack[-1]["in_caption"] = False
        elif tag in ("td", "th"):
            self.cell = None
        elif tag == "span" and self.cell is not None and self.cell["v"] is not None:
            self.cell["v_done"] = True
        if tag in self.BLOCK:
            self.text.append("\n")

    def handle_data(self, data):
        if self.skip:
            return
        if self.in_title:
            self.title += data
        self.text.append(data)
        if self.stack and self.stack[-1]["in_caption"]:
            self.stack[-1]["caption"] += data
        if self.cell is not None:
            self.cell["text"] += data
            if self.cell["v"] is not None and not self.cell.get("v_done"):
                self.cell["v"] += data

    def table(self, caption_start):
        for t in self.tables:
            if t["caption"].startswith(caption_start):
                return t
        return None

    def visible_text(self):
        lines = ("".join(self.text)).split("\n")
        return "\n".join(" ".join(l.split()) for l in lines if l.strip()) + "\n"


def parse(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p


def grid(table):
    """{(row label, column label): cell} of a matrix whose first row and column are labels."""
    if not table:
        return {}
    head = [" ".join(c["text"].split()) for c in table["rows"][0]]
    out = {}
    for row in table["rows"][1:]:
        label = " ".join(row[0]["text"].split())
        for j, c in enumerate(row[1:], 1):
            out[(label, head[j])] = c
    return out


def cell_is(g, key, v=None, text=None, bucket=None, what=""):
    c = g.get(key)
    if c is None:
        check(False, "%s: no cell %s" % (what, key))
        return
    if v is not None:
        check(c["v"] == v, "%s %s: value %r, expected %r" % (what, key, c["v"], v))
    if text is not None:
        got = " ".join(c["text"].split())
        check(got == text, "%s %s: text %r, expected %r" % (what, key, got, text))
    if bucket is not None:
        check(c["attrs"].get("data-bucket") == str(bucket),
              "%s %s: bucket %r, expected %d" % (what, key, c["attrs"].get("data-bucket"), bucket))


def static(p, raw):
    check(raw.startswith("<!DOCTYPE html>"), "no doctype")
    check(not p.misnested and not p.open, "elements misnested %s or left open %s" % (p.misnested[:3], p.open))
    check(p.title and p.title.startswith("commdiag report: "), "title %r" % p.title)
    check(("html", {"lang": "en"}) in p.tags, "no <html lang=en>")
    check(not [t for t, _ in p.tags if t in ("script", "link", "iframe", "object", "embed", "img", "base")],
          "a tag that runs or fetches something: %s" % sorted({t for t, _ in p.tags}))
    csp = [a for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    check(csp and csp[0].get("content", "").startswith("default-src 'none'"), "no default-src 'none' policy")
    for t, a in p.tags:
        for k in ("src", "srcset", "action", "poster", "data"):
            check(k not in a, "<%s %s=...>" % (t, k))
        if "href" in a:
            check(a["href"].startswith("#"), "<%s href=%r>: not an anchor of the page" % (t, a["href"]))
            check(a["href"][1:] in p.ids, "<%s href=%r>: no such id" % (t, a["href"]))
        check(not [k for k in a if k.startswith("on")], "<%s> has an event handler" % t)
    check("url(" not in raw and "@import" not in raw, "CSS fetches something (url( or @import)")
    # every heat cell carries its value as text, not only as a colour
    for t, a in p.tags:
        if t == "td" and a.get("class") == "heat":
            check(a.get("title"), "a heat cell without a title")


def p2p(p):
    bw = grid(p.table("GPU to GPU copy bandwidth"))
    check(len(bw) == 64, "p2p.bw matrix has %d cells, expected 8x8" % len(bw))
    # 370.0 + ((i * 7 + j * 3) % 9) * 1.3 in make-h100-docs.py; GPU2 -> GPU6 degraded to 148.2
    cell_is(bw, ("GPU2", "GPU6"), v="148.2", text="148.2 39 %", bucket=0, what="p2p.bw")
    cell_is(bw, ("GPU0", "GPU1"), v="373.9", bucket=4, what="p2p.bw")
    cell_is(bw, ("GPU6", "GPU2"), v="%.1f" % (370.0 + ((6 * 7 + 2 * 3) % 9) * 1.3), bucket=4, what="p2p.bw")
    cell_is(bw, ("GPU3", "GPU3"), text="X", what="p2p.bw")
    lat = grid(p.table("GPU to GPU copy latency"))
    check(len(lat) == 64, "p2p.latency matrix has %d cells" % len(lat))
    cell_is(lat, ("GPU0", "GPU4"), v="2.25", bucket=4, what="p2p.latency")
    paths = grid(p.table("GPU to GPU and GPU to network device"))
    cell_is(paths, ("GPU0", "GPU1"), text="NV18", what="paths")
    cell_is(paths, ("GPU0", "GPU0"), text="X", what="paths")
    cell_is(paths, ("GPU0", "mlx5_0"), text="PIX", what="paths")
    cell_is(paths, ("GPU0", "mlx5_1"), text="NODE", what="paths")
    cell_is(paths, ("GPU0", "mlx5_4"), text="SYS", what="paths")
    cell_is(paths, ("GPU4", "eth0"), text="NODE", what="paths")
    cell_is(paths, ("GPU5", "NCCL P2P with"), text="all others", what="paths")
    rows = [r for t in p.tables if t["rows"] and t["rows"][0][0]["text"] == "severity" for r in t["rows"][1:]]
    check([(" ".join(r[0]["text"].split()), r[1]["text"], r[3]["text"]) for r in rows] ==
          [("FAIL", "P2P001", "gpu2-gpu6")], "findings: %r" % [[c["text"] for c in r] for r in rows])
    text = p.visible_text()
    # a slow NVLink pair is a hardware fault: no setting, and the page says so
    for want in ("No setting to change", "Verdict: FAIL", "Host gpu-node07 · 8 GPUs"):
        check(want in text, "page text lacks %r" % want)
    check(re.search(r"Score \d+/100", text), "no score")


def netns(p):
    reach = grid(p.table("TCP reachability"))
    cell_is(reach, ("hostA", "hostB"), v="1/2", text="1/2 some fail", bucket=2, what="reach")
    cell_is(reach, ("hostB", "hostA"), v="1/2", bucket=2, what="reach")
    cell_is(reach, ("hostA", "hostA"), text="X", what="reach")
    tcp = grid(p.table("Host to host TCP bandwidth"))
    cell_is(tcp, ("hostA", "hostB"), v="0.807", bucket=4, what="tcp.bw")
    cell_is(tcp, ("hostB", "hostA"), text="–", what="tcp.bw")
    mpi = grid(p.table("Host to host MPI bandwidth"))
    cell_is(mpi, ("hostA", "hostB"), v="0.505", bucket=4, what="mpi.bw")
    att = p.table("Connection attempts")
    check(att and len(att["rows"]) == 5, "connection attempts: expected 4 rows")
    text = p.visible_text()
    check("FAILED: Connection refused; 172.17.0.1 is also an address of this host" in text, "no failed attempt")


def findings(p, doc):
    want = sorted((f["severity"].upper(), f["id"], f["host"] or "", f["subject"] or "") for f in doc["findings"])
    rows = [r for t in p.tables if t["rows"] and t["rows"][0][0]["text"] == "severity" for r in t["rows"][1:]]
    got = sorted(tuple(" ".join(c["text"].split()) for c in r[:4]) for r in rows)
    check(want and got == want, "findings table %r, document %r" % (got, want))


def inject(p, name):
    check(not [t for t, _ in p.tags if t in ("script", "img")], "markup from the document became elements")
    check(name in p.title, "the hostname is not text in the title: %r" % p.title)
    check(name in p.visible_text(), "the hostname is not text in the page")
    hosts = [r for t in p.tables if t["rows"] and t["rows"][0][0]["text"] == "host" for r in t["rows"][1:]]
    check(hosts and hosts[0][0]["text"] == name, "hosts table: %r" % (hosts[0][0]["text"] if hosts else None))


def read_png(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("%s: PNG is not 8-bit RGB/RGBA non-interlaced: %r" % (path, ihdr))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    prev, rows = bytearray(stride), []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a, b = (line[i - bpp] if i >= bpp else 0), prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def blocks(w, h, bpp, rows, size=64):
    """Mean grey level of each size x size block: the page's layout, blind to glyph detail."""
    out = []
    for by in range(0, h, size):
        for bx in range(0, w, size):
            tot = n = 0
            for y in range(by, min(by + size, h)):
                r = rows[y]
                for x in range(bx, min(bx + size, w)):
                    i = x * bpp
                    tot += r[i] + r[i + 1] + r[i + 2]
                    n += 3
            out.append(tot / n)
    return out


def census(w, bpp, rows):
    """Pixels of each exact RGB colour: the flat fills (cells, badges, bars) are CSS colours."""
    c = {}
    for r in rows:
        for x in range(0, w * bpp, bpp):
            k = bytes(r[x:x + 3])
            c[k] = c.get(k, 0) + 1
    return c


def png(path, golden):
    """Pixels move with every font and Chromium version (antialiasing, hinting, metrics), so
    the screenshot is not compared pixel by pixel. It must have the golden's size; its layout,
    as 64x64 blocks of mean grey, must be close (a blank page is 17 away, this page re-rendered
    0); and each colour that fills at least 0.1 % of the golden must fill about as much (within
    25 %): lost styling, a heatmap gone grey or a verdict of another colour change those."""
    w, h, bpp, rows = read_png(path)
    gw, gh, gbpp, grows = read_png(golden)
    check((w, h) == (gw, gh), "screenshot is %dx%d, golden %dx%d" % (w, h, gw, gh))
    if failures:
        return
    a, b = blocks(w, h, bpp, rows), blocks(gw, gh, gbpp, grows)
    mean = sum(abs(x - y) for x, y in zip(a, b)) / len(a)
    check(mean < 12, "layout differs from %s: mean grey difference of 64x64 blocks %.2f (limit 12)" % (golden, mean))
    got, want = census(w, bpp, rows), census(gw, gbpp, grows)
    worst = 0.0
    for colour, n in sorted(want.items(), key=lambda kv: -kv[1]):
        if n < 0.001 * w * h:
            break
        rel = abs(got.get(colour, 0) - n) / n
        worst = max(worst, rel)
        check(rel <= 0.25, "#%s fills %d pixels, the golden %d" % (colour.hex(), got.get(colour, 0), n))
    print("png: %dx%d, layout difference %.2f (limit 12), largest colour-area change %.0f %% (limit 25 %%)"
          % (w, h, mean, 100 * worst))


def main(argv):
    what, path = argv[1], argv[2]
    if what == "png":
        png(path, argv[3])
    elif what == "text":
        sys.stdout.write(parse(path).visible_text())
        return 0
    else:
        p = parse(path)
        if what == "static":
            static(p, open(path, encoding="utf-8").read())
        elif what == "p2p":
            p2p(p)
        elif what == "netns":
            netns(p)
        elif what == "findings":
            findings(p, json.load(open(argv[3])))
        elif what == "inject":
            inject(p, argv[3])
        else:
            print("html_check.py: unknown check %r" % what, file=sys.stderr)
            return 2
    for f in failures:
        print("%s: %s" % (path, f), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
