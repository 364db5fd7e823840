"""The executable's memory allocator (docs/operations.md, "Memory allocator")."""

from servers import extra_server, server_log


def test_mimalloc_serves_malloc(public_url):
    # The executable links mimalloc ahead of libc; at its start the server asks mimalloc whether a block from malloc
    # is its own, and says so.
    with extra_server("allocator", public_url, []):
        pass
    log = server_log("allocator").read_text()
    assert "memory allocator: mimalloc 2." in log
    assert "not mimalloc" not in log


def test_a_server_whose_malloc_is_glibcs_says_so(public_url, monkeypatch):
    # libc preloaded comes before mimalloc in the search for malloc: mimalloc is loaded but allocates nothing, and the
    # start warns about it rather than claiming the allocator the benchmarks measured.
    monkeypatch.setenv("LD_PRELOAD", "libc.so.6")
    with extra_server("allocator-glibc", public_url, []):
        pass
    log = server_log("allocator-glibc").read_text()
    assert "warning tessera: [tessera] memory allocator: glibc's malloc, not mimalloc" in log
