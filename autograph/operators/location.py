"""Where in the user's code an operator was called from."""

from __future__ import annotations

import sys
from typing import Optional

from ..pyct import loader


def user_location(max_depth: int = 12) -> Optional[str]:
    """`file:line` of the nearest converted-code frame on the stack (that frame's file and
    line are the user's original ones), or None."""
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return None
        if loader.is_generated(frame.f_code):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def at(location: Optional[str]) -> str:
    """" (at file:line)" or ""."""
    return f" (at {location})" if location else ""
