"""Copy a bundled model to a file of your own, ready to edit and check."""
from __future__ import annotations

import os
import re
from pathlib import Path

from ...interpreter.model.errors import ModelError, RulebookError, UsageError
from ...interpreter.model.limits import read_untrusted
from ...interpreter.model.loader import load_source, resolve
from ...interpreter.model.schemacheck import SCHEMA_PATH
from .outputs import write_output

ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL", help="a bundled model's name (or a model file) to copy")
    p.add_argument("path", metavar="PATH", help="the new model file, e.g. my-game.yaml")
    p.add_argument("--id", default=None, help="the copy's id (default: from the file name)")
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")


def id_from_path(path: Path) -> str:
    """`my-game.yaml` → `my_game`: lowercase letters, digits and _, starting with a letter."""
    stem = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower()).strip("_")
    if not ID_PATTERN.match(stem):
        raise UsageError("cannot make a model id from the file name '{name}'",
                         "choose one with --id, e.g. --id my_game", name=path.name)
    return stem


def copy_text(source: str, new_id: str, schema: Path = SCHEMA_PATH) -> str:
    """The model text with its top-level id replaced and the editor's schema link made absolute.

    Everything else (comments, order, layout) stays as it was, so the copy reads like the original.
    """
    text, n = re.subn(r"(?m)^id:[ \t]*\S+[ \t]*$", f"id: {new_id}", source, count=1)
    if n != 1:
        raise UsageError("the model has no top-level 'id:' line to rename")
    link = f"# yaml-language-server: $schema={schema.resolve().as_uri()}"
    text, n = re.subn(r"(?m)^#\s*yaml-language-server:\s*\$schema=.*$", link, text, count=1)
    if n == 0:
        text = link + "\n" + text
    return text


def run(args) -> int:
    source_path = resolve(args.model)
    dest = Path(args.path)
    if dest.suffix not in (".yaml", ".yml"):
        raise UsageError("the new model file should end in .yaml, not '{name}'", name=dest.name)
    if dest.is_symlink():  # also a dangling one: writing would create the file it points to
        raise UsageError("{dest} is a symbolic link; name the file itself", dest=dest)
    if dest.exists() and source_path.exists() and os.path.samefile(dest, source_path):
        raise UsageError("{dest} is the model being copied; it is never overwritten", dest=dest)
    if dest.exists() and not args.force:
        raise UsageError("{dest} already exists", "choose another name, or overwrite it with --force", dest=dest)
    if dest.is_dir():
        raise UsageError("{dest} is a folder", dest=dest)
    folder = dest.parent if str(dest.parent) else Path(".")
    if not folder.is_dir():  # never made on the way: a mistyped folder is a mistake, not a wish
        raise UsageError("the folder {folder} does not exist", "make it first, or name a file in a folder that exists",
                         folder=folder)
    new_id = args.id or id_from_path(dest)
    if not ID_PATTERN.match(new_id):
        raise UsageError("--id: '{new_id}' is not a valid id (lowercase letters, digits and _; starts with a letter)", new_id=new_id)
    text = copy_text(read_untrusted(source_path, "model", ModelError), new_id)
    try:
        load_source(text, str(dest))  # the copy must load exactly like the original
    except RulebookError as exc:
        raise UsageError("the copy of {model} does not load: {reason}", model=args.model, reason=exc.msg) from None
    write_output(dest, text, "new", args.force)
    from ..i18n import pick_language, translator
    _ = translator(pick_language()).gettext
    print(_("wrote {path} (a copy of {model}, id {id})").format(path=dest, model=source_path.stem, id=new_id))
    print(_("edit it, then check it with:  {command}").format(command=f"rulebook check {dest}"))
    print(_("and write its rule pages:     {command}").format(command=f"rulebook pages {dest} -o site"))
    return 0
