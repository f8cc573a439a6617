"""Deprecated: the txlog writer's package is now ``ledgerspec.conformance.txlog_writer``; an alias is left."""
