#!/bin/sh
# azd postprovision hook: prints the one-time database steps with this environment's names
# (azd passes the environment's values, among them main.bicep's outputs, as variables).
set -eu
cat <<TEXT

Provisioned ${AZURE_RESOURCE_GROUP:-the resource group}. One-time database steps, as a member of the SQL admin group
(see infra/README.md, "First deployment"):

  1. Let the app's identity in:
     sqlcmd -S ${AZURE_SQL_SERVER_FQDN:-<server>} -d ${AZURE_SQL_DATABASE_NAME:-platform} --authentication-method ActiveDirectoryDefault \\
       -v AppIdentityName=${AZURE_APP_IDENTITY_NAME:-<identity>} -i infra/sql/grant-app-identity.sql
  2. Apply the schema:
     APP_ENV=test SQL_CONNECTION_STRING="Server=tcp:${AZURE_SQL_SERVER_FQDN:-<server>},1433;Database=${AZURE_SQL_DATABASE_NAME:-platform};Authentication=Active Directory Default;Encrypt=true" npm run migrate

TEXT
