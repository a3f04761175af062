"""Reading git patches into per-file changes and rebuilding each file's patched content from its base."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.scorecard.patch import PatchReadError, read_patch
from tests.testing.patches import Patches

BASE: dict[str, str | bytes | None] = {"a.py": "one = 1\ntwo = 2\nthree = 3\n" + "".join(f"pad{i} = {i}\n" for i in range(10)) + "last = 0\n",
        "gone.py": "x = 1\n", "same.txt": "kept\nas it was\n", "moved.py": "def f():\n    return 1\n",
        "blob.bin": bytes(range(256))}


@pytest.fixture
def patches(tmp_path: Path) -> Patches:
    return Patches(tmp_path, dict(BASE))


def test_each_file_gets_its_status_hunks_and_lines(patches: Patches) -> None:
    text = BASE["a.py"]
    assert isinstance(text, str)
    changed = text.replace("two = 2", "two = 22").replace("last = 0", "last  =  0")
    patch = patches.patch({"a.py": changed, "gone.py": None, "new.py": "y = 2\n", "blob.bin": b"\x00\x01",
                           "moved.py": None, "renamed.py": BASE["moved.py"]})
    by = {c.path: c for c in read_patch(patch)}
    assert set(by) == {"a.py", "gone.py", "new.py", "blob.bin", "renamed.py"}
    a = by["a.py"]
    assert (a.status, len(a.hunks), a.lines) == ("modified", 2, 4)
    assert [h.whitespace_only for h in a.hunks] == [False, True]
    assert a.removed_lines == ("two = 2", "last = 0") and a.added_lines == ("two = 22", "last  =  0")
    assert by["gone.py"].status == "deleted" and by["new.py"].status == "added"
    assert by["blob.bin"].binary and by["blob.bin"].hunks == ()
    assert (by["renamed.py"].status, by["renamed.py"].old_path) == ("renamed", "moved.py")


def test_a_diff_without_rename_detection_pairs_identical_content_as_a_rename(patches: Patches) -> None:
    patch = patches.patch({"moved.py": None, "elsewhere/moved.py": BASE["moved.py"]}, renames=False)
    assert b"deleted file mode" in patch  # git shows two changes
    (change,) = read_patch(patch)
    assert (change.path, change.old_path, change.status, change.hunks) == (
        "elsewhere/moved.py", "moved.py", "renamed", ())
    assert change.after(b"def f():\n    return 1\n") == b"def f():\n    return 1\n"


def test_the_patched_content_is_rebuilt_from_the_base(patches: Patches) -> None:
    text = BASE["a.py"]
    assert isinstance(text, str)
    changed = "zero = 0\n" + text.replace("three = 3\n", "").replace("last = 0\n", "last = 0\nmore = 1")
    patch = patches.patch({"a.py": changed, "new.py": "y = 2\n", "gone.py": None})
    by = {c.path: c for c in read_patch(patch)}
    assert by["a.py"].after(patches.base("a.py")) == changed.encode()  # without the newline at the end
    assert by["new.py"].after(None) == b"y = 2\n"
    assert by["gone.py"].after(patches.base("gone.py")) is None


def test_a_base_that_does_not_match_the_hunks_gives_no_content(patches: Patches) -> None:
    patch = patches.patch({"same.txt": "kept\nchanged\n"})
    (change,) = read_patch(patch)
    assert change.after(b"kept\nas it was\n") == b"kept\nchanged\n"
    assert change.after(b"something else entirely\n") is None


def test_an_empty_patch_has_no_changes_and_a_broken_one_is_an_error() -> None:
    assert read_patch(b"") == () and read_patch(b"\n") == ()
    with pytest.raises(PatchReadError, match="not a readable diff"):
        read_patch(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n")


def test_quoted_paths_and_mode_changes(patches: Patches) -> None:
    patch = patches.patch({"café.py": "x = 1\n", "docs/a b.md": "text\n"})
    assert b'"b/caf\\303\\251.py"' in patch  # git quotes the name
    assert {c.path for c in read_patch(patch)} == {"café.py", "docs/a b.md"}
    patches.repo.git("checkout", "-q", "-f", patches.base_sha)
    (patches.repo.path / "same.txt").chmod(0o755)
    patches.repo.git("add", "-A")
    mode_only = patches.repo.git("diff", "--cached", patches.base_sha).encode() + b"\n"
    patches.repo.git("reset", "-q", "--hard", patches.base_sha)
    (change,) = read_patch(mode_only)
    assert (change.path, change.status, change.lines) == ("same.txt", "modified", 0)
    assert change.after(b"kept\nas it was\n") == b"kept\nas it was\n"
