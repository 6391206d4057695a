#!/usr/bin/env bash
# module-test-fixtures.sh HOST:PORT: seeds a local cloud with what the modules' terraform tests and
# the blueprints' plans expect to find there: the A3 Mega reservations a partition's plan checks for
# capacity. Run by tools/module-tests.sh and by the pipeline's validate stage (pipelines/run.sh). A
# reservation that exists already is left alone: an environment on that local cloud may be using it.
set -euo pipefail
addr="${1:?usage: module-test-fixtures.sh HOST:PORT}"
zone=us-central1-a
seed_reservation() { # seed_reservation PROJECT NAME
  if curl -fsS -o /dev/null "http://$addr/compute/v1/projects/$1/zones/$zone/reservations/$2" 2>/dev/null; then
    return
  fi
  curl -fsS -X POST "http://$addr/emulator/v1/reservations" -H 'Content-Type: application/json' -d "{
    \"project\": \"$1\", \"zone\": \"$zone\", \"reservation\": {\"name\": \"$2\",
    \"specificReservationRequired\": true, \"specificReservation\": {\"count\": \"16\",
    \"instanceProperties\": {\"machineType\": \"a3-megagpu-8g\"}}}}" >/dev/null
}
seed_reservation ml-capacity a3mega
seed_reservation ml-capacity a3mega-us-central1-a
seed_reservation modtest-cluster a3mega-res
