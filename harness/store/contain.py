"""Library code that must not end the process or write to stdout (meshio's readers call ``sys.exit`` and
print on a malformed file): :func:`contained` turns both into one ``ValueError`` line."""
from __future__ import annotations

import contextlib
import io


@contextlib.contextmanager
def contained(what: str):
    """Run the body with stdout and stderr captured; a ``SystemExit`` it raises becomes
    ``ValueError("what: <its words>")``, any other exception is raised as it is.

    Output the body wrote is dropped (a library's chatter, never a result; the error line says what failed).
    """
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            yield
    except SystemExit as exc:
        said = " ".join(buf.getvalue().split())[:200]
        code = f"exit {exc.code}" if not isinstance(exc.code, str) else exc.code
        raise ValueError(f"{what}: {said or 'the reader gave up'} ({code})") from None
