"""SocKET pair classification (``PAIR``): as ``socket_cls``, the question quoting both sentences of the pair."""

from __future__ import annotations

from mmsoc.tasks.kinds.socket_cls import SocketChoice

KIND = SocketChoice("socket_pair", "PAIR")
