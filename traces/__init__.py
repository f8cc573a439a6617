"""ledgerspec.traces: trace format, recorder, workload generator and the local and Spark checkers."""
