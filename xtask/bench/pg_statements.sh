#!/bin/bash
# Counts the PostgreSQL statements one request of each of a few operations sends
# (docs/benchmarks.md, "sixth round"). Needs a PostgreSQL server started with
# shared_preload_libraries=pg_stat_statements that this script may drop and create the
# database `prof` on, and jq and curl.
#
# Usage: xtask/bench/pg_statements.sh path/to/sounding [host] [port]
set -e
BIN=$1; HOST=${2:-127.0.0.1}; PORT=${3:-5434}
DB=postgres://postgres@$HOST:$PORT/prof
P="psql -h $HOST -p $PORT -U postgres -q"
$P -c "drop database if exists prof with (force)" -c "create database prof"; $P -d prof -c "create extension pg_stat_statements"
KEY=$($BIN team create --database $DB --name Prof --subdomain prof --json | jq -r .apiKey)
SOUNDING_LOG=warn SOUNDING_WEBHOOKS=off SOUNDING_RATE_LIMIT_KEY_PER_MIN=1000000 SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN=1000000 $BIN serve --database $DB --bind 127.0.0.1:18090 & SPID=$!
trap "kill $SPID" EXIT; sleep 2
U=http://127.0.0.1:18090/v1
post() { curl -s -X POST "$U/$1" -H "Authorization: Bearer $2" -H 'content-type: application/json' -d "$3"; }
BOARD=$(post feedback-boards.create $KEY '{"name":"Main","meta":{"isPublic":true,"allowPublicSubmissions":true}}' | jq -r .data.id)
TOK=$(post public/subscriber.identify $KEY '{"email":"a@b.c","name":"A"}' | jq -r .code)
FB=$(post public/feedbacks.create $TOK "{\"title\":\"Hello\",\"boardId\":\"$BOARD\"}" | jq -r .data.id)
echo "board=$BOARD fb=$FB"
measure() { # name auth body path
  $P -d prof -c "select pg_stat_statements_reset()" >/dev/null
  for i in $(seq 1 ${N:-20}); do post "$2" "$3" "$(eval echo "$4")" >/dev/null; done
  echo "== $1: statements per request"
  $P -d prof -At -c "select round(sum(calls)::numeric/${N:-20},1) from pg_stat_statements where query not like '%pg_stat_statements%'"
  $P -d prof -At -c "select round(calls::numeric/${N:-20},1) || '  ' || left(regexp_replace(query,'\s+',' ','g'),110) from pg_stat_statements where query not like '%pg_stat_statements%' order by calls desc limit 14"
}
measure info public/feedbacks.info $KEY "'{\"feedbackId\":\"$FB\"}'"
measure list public/feedbacks.list $KEY "'{\"sortBy\":\"top\",\"limit\":20}'"
measure create public/feedbacks.create $TOK "'{\"title\":\"T \$i\",\"boardId\":\"$BOARD\"}'"
measure identify public/subscriber.identify $KEY "'{\"email\":\"a@b.c\"}'"
N=1 measure vote public/feedback-votes.create $TOK "'{\"feedbackId\":\"$FB\"}'"
measure boards public/feedback-boards.list $KEY "'{}'"
kill $SPID; wait $SPID 2>/dev/null || true
