"""``sources.gitdiff``: the changes between revisions, as ``list_tree`` lists entries."""
from gitrepo import commit, init

from punstats.sources import git as gitsource
from punstats.sources import gitdiff


def _tree(gitdir, sha):
    return {entry.path: entry for entry in gitsource.list_tree(gitdir, sha)}


def test_changed_entries_are_the_difference_of_the_trees_listed_whole(tmp_path):
    root = tmp_path / "repo"
    init(root)
    shas = [commit(root, {"a.py": "a = 1\n", "d/b.py": "b = 1\n", "c.txt": "c\n"}),
            commit(root, {"a.py": "a = 2\n", "d/b.py": None, "d/e/new.py": "n = 1\n"}, links={"l.py": "a.py"}),
            commit(root, {"c.txt": "changed\n"})]
    gitdir = gitsource.git_dir(str(root))
    pairs = [(shas[0], shas[1]), (shas[1], shas[2]), (shas[2], shas[2]), (shas[2], shas[0])]
    answers = gitdiff.changed_entries(gitdir, pairs)
    assert len(answers) == 4 and answers[2] == []  # one answer per pair, in order, an empty one too
    for (old, new), changes in zip(pairs, answers):
        before, after = _tree(gitdir, old), _tree(gitdir, new)
        expected = {path: after.get(path) for path in set(before) | set(after) if before.get(path) != after.get(path)}
        assert dict(changes) == expected
    assert dict(answers[0])["l.py"].mode == gitsource.MODE_SYMLINK and dict(answers[0])["d/b.py"] is None
    assert gitdiff.changed_entries(gitdir, []) == []
