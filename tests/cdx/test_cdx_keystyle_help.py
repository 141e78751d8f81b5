"""``warckit surt`` and ``warckit index`` default to different key styles; both ``--help``
texts say which style each index format uses, and what they say is true (issue 12)."""

from __future__ import annotations

import pytest
from corpus_paths import corpus_path

from warckit.cli import main


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main([*argv, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines


def test_surt_help_names_the_style_of_each_index_format(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "surt")
    assert "NOTE: the default style is not the key of the default 'warckit index' output" in text
    assert "warckit index new-style CDX com,example,)/ = warckit surt --style new-style" in text
    assert "warckit index -f cdxj CDXJ com,example)/ = warckit surt" in text


def test_index_help_names_the_surt_style(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "index")
    assert "Keys: new-style SURTs (com,example,)/ — 'warckit surt --style new-style')" in text
    assert "with -f cdxj, cdx11 or cdx9 cdx-style SURTs (com,example)/ — 'warckit surt', its default)" in text


@pytest.mark.parametrize(("fmt", "style"), [("cdx", ["--style", "new-style"]), ("cdxj", []),
                                            ("cdx11", []), ("cdx9", [])])
def test_what_the_help_says_is_true(capsys: pytest.CaptureFixture[str], fmt: str, style: list[str]) -> None:
    warc = str(corpus_path("pywb/example.warc.gz"))
    assert main(["index", "--no-header", "-f", fmt, warc]) == 0
    key = capsys.readouterr().out.splitlines()[0].split(" ")[0]
    assert main(["surt", *style, "http://example.com?example=1"]) == 0
    assert capsys.readouterr().out == key + "\n"
    assert key == ("com,example,)/?example=1" if fmt == "cdx" else "com,example)/?example=1")
