"""One reader per documented response shape; :mod:`vcg_otel.reading.registry` orders them."""
