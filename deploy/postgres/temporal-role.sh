#!/bin/sh
# Runs once, when the postgres volume is initialised (/docker-entrypoint-initdb.d): the role
# temporal-server and its schema job use. Not a superuser: it may create its two databases
# (temporal, temporal_visibility) and owns them, nothing else. An existing volume needs the same
# statement run once by hand (docs/alerts.md, "Deployment roles").
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v pw="$TEMPORAL_DB_PASSWORD" <<'SQL'
create role temporal login createdb password :'pw';
SQL
