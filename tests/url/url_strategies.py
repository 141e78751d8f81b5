"""Hypothesis strategies for URLs: IDN hosts, ports, user-info, queries, escapes."""

from __future__ import annotations

from hypothesis import strategies as st

_LABEL_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
_IDN_CHARS = "äöüßéñçøåłżščкирилцаπλ中文例子日本ひらがなß\u0130ﬁＥｘ"
_PATH_CHARS = "abcXYZ019-._~!$&'()*+,;=:@/%?# \"<>\\^`{|}éß中\x00\x7f"
_HEX = "0123456789abcdefABCDEF"

labels = st.one_of(
    st.text(_LABEL_CHARS, min_size=1, max_size=10),
    st.text(_LABEL_CHARS + _IDN_CHARS, min_size=1, max_size=8),
    st.sampled_from(["www", "WWW", "www2", "m", "xn--n3h", "xn--bcher-kva", "faß", "例子"]),
)
escape = st.builds(lambda a, b: "%" + a + b, st.sampled_from(_HEX), st.sampled_from(_HEX))
hosts = st.one_of(
    st.lists(labels, min_size=1, max_size=4).map(".".join),
    st.tuples(*[st.integers(0, 299)] * 4).map(lambda t: ".".join(map(str, t))),
    st.integers(0, 2**33).map(str),
    st.sampled_from(["[2001:DB8::1]", "localhost", "example.com.", "..a..b..", "%77%77%77.ex.com"]),
)
ports = st.one_of(st.just(""), st.integers(0, 70000).map(lambda p: f":{p}"), st.just(":"))
userinfo = st.one_of(st.just(""), st.sampled_from(["user@", "user:pass@", "a%40b:c@", "@"]))
path_piece = st.one_of(st.text(_PATH_CHARS.replace("?", "").replace("#", ""), max_size=8), escape)
paths = st.lists(path_piece, max_size=6).map(lambda p: "/" + "/".join(p))
query_arg = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.text("abcAB%=+", max_size=4), st.text("xyzXY%2 é", max_size=4)),
    st.text("abcAB%", max_size=3),
    st.sampled_from(
        [
            "jsessionid=0123456789abcdef0123456789ABCDEF",
            "PHPSESSID=0123456789abcdefghijklemopqrstuv",
            "sid=0123456789abcdefghijklemopqrstuv",
            "ASPSESSIONIDabcdefgh=abcdefghijklmnopqrstuvwx",
            "CFID=12",
            "CFTOKEN=99",
            "a=%C5%82",
        ]
    ),
)
queries = st.one_of(
    st.just(""), st.just("?"), st.lists(query_arg, max_size=5).map(lambda q: "?" + "&".join(q))
)
fragments = st.one_of(st.just(""), st.text("abc#?/", max_size=5).map(lambda f: "#" + f))
schemes = st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "", "http://https://", "dns:", "ws://"])

urls = st.builds(
    lambda s, u, h, p, pa, q, f: s + u + h + p + pa + q + f,
    schemes, userinfo, hosts, ports, paths, queries, fragments,
)
