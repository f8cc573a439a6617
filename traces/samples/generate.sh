#!/usr/bin/env bash
# Regenerates the shipped samples: an ok/bad pair per profile (JSON lines) and a Parquet pair.
# Deterministic by seed: tests/unit/test_samples.py regenerates one and compares it byte for byte.
set -euo pipefail
cd "$(dirname "$0")"
CONFIG='{"max_size": 1000000, "ttl": 5000000, "ttl_max": 25000000, "max_requeue": 3, "segment_size_max": 250000}'
for profile in pip430 pulsar-master legacy segmented; do
  ledgerspec traces generate --profile "$profile" --workload mixed --brokers 2 --topics 4 --events 1500 \
    --seed 1 --config "$CONFIG" --out "$profile-ok.jsonl" --expected "$profile-ok.expected.json" > /dev/null
  ledgerspec traces generate --profile "$profile" --workload mixed --brokers 2 --topics 4 --events 1500 \
    --seed 1 --config "$CONFIG" --inject all --out "$profile-bad.jsonl" --expected "$profile-bad.expected.json" > /dev/null
done
ledgerspec traces generate --profile pulsar-master --workload mixed --brokers 4 --topics 16 --events 20000 \
  --seed 2 --config "$CONFIG" --out pulsar-master-ok.parquet --expected pulsar-master-ok.parquet.expected.json > /dev/null
ledgerspec traces generate --profile pulsar-master --workload key-shared --brokers 4 --topics 16 --events 20000 \
  --seed 3 --config "$CONFIG" --inject all --out pulsar-master-bad.parquet \
  --expected pulsar-master-bad.parquet.expected.json > /dev/null
