"""Model backends, one module each; every module declares ``MODEL`` (see ``mmsoc.models.registry``)."""
