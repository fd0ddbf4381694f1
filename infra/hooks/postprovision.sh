#!/bin/sh
# azd postprovision hook: prints the one-time database steps with this environment's names, then
# subscribes the app's communication-events function to the Communication Services events (azd
# passes the environment's values, among them main.bicep's outputs, as variables). As the
# postdeploy hook (`--events-only`) it only subscribes: on the very first `azd up` the app exists
# only once deploy has run, so that is when the subscription can be made.
set -eu
if [ "${1:-}" != "--events-only" ]; then
cat <<TEXT

Provisioned ${AZURE_RESOURCE_GROUP:-the resource group}. One-time database steps, as a member of the SQL admin group
(see infra/README.md, "First deployment"):

  1. Let the app's identity in:
     sqlcmd -S ${AZURE_SQL_SERVER_FQDN:-<server>} -d ${AZURE_SQL_DATABASE_NAME:-platform} --authentication-method ActiveDirectoryDefault \\
       -v AppIdentityName=${AZURE_APP_IDENTITY_NAME:-<identity>} -i infra/sql/grant-app-identity.sql
  2. Apply the schema:
     APP_ENV=test SQL_CONNECTION_STRING="Server=tcp:${AZURE_SQL_SERVER_FQDN:-<server>},1433;Database=${AZURE_SQL_DATABASE_NAME:-platform};Authentication=Active Directory Default;Encrypt=true" npm run migrate

TEXT
fi

# --- Communication Services delivery reports -------------------------------------------------
# main.bicep creates the Event Grid system topic on the Communication Services resource. The
# subscription that delivers its events to the app is created here, not in Bicep: its webhook URL
# must carry the Functions host's Event Grid system key (eventgrid_extension), which the running
# host creates and keeps in its blob key store and which Bicep cannot read at deployment time (no
# list* function exists for Container Apps function keys). Creating the subscription also makes
# Event Grid call the endpoint for its validation handshake, which only the real app answers, not
# the placeholder image of the very first provision. So this step runs when the app is there, and
# otherwise says how to run it later. The key is never printed, kept in the azd environment or
# written anywhere but a private temporary file that is removed at once.
topic=${AZURE_COMMUNICATION_EVENTS_TOPIC:-}
[ -n "$topic" ] || exit 0

group=${AZURE_RESOURCE_GROUP:-}
app=${SERVICE_API_NAME:-}
app_url=${SERVICE_API_URL:-}
function_name=communication-events
subscription=communication-events
api_version=2022-06-15

later() {
  cat <<TEXT
Communication Services delivery reports: the Event Grid subscription is not in place ($1).
Once the app is deployed (\`azd deploy\`) and you are signed in to the Azure CLI (\`az login\`), run
\`azd hooks run postdeploy\`, or see infra/README.md, "Communication Services".

TEXT
  exit 0
}

# Percent-encodes a query-string value (a host key may hold '+', '/' and '=').
urlencode() {
  rest=$1
  out=
  while [ -n "$rest" ]; do
    char=${rest%"${rest#?}"}
    rest=${rest#?}
    case $char in
      [A-Za-z0-9._~-]) out=$out$char ;;
      *) out=$out$(printf '%%%02X' "'$char") ;;
    esac
  done
  printf '%s' "$out"
}

command -v az >/dev/null 2>&1 || later "the Azure CLI (az) is not installed"
az account show --only-show-errors --output none >/dev/null 2>&1 || later "the Azure CLI is not signed in"
deadletter_storage=${AZURE_COMMUNICATION_DEADLETTER_STORAGE_ID:-}
deadletter_container=${AZURE_COMMUNICATION_DEADLETTER_CONTAINER:-}
[ -n "$group" ] && [ -n "$app" ] && [ -n "$app_url" ] && [ -n "$deadletter_storage" ] && [ -n "$deadletter_container" ] ||
  later "the azd environment lacks main.bicep's outputs; run azd provision"
# The function-key commands come with the containerapp extension of the Azure CLI.
export AZURE_EXTENSION_USE_DYNAMIC_INSTALL=yes_without_prompt

az containerapp function show --resource-group "$group" --name "$app" --function-name "$function_name" \
  --only-show-errors --output none >/dev/null 2>&1 ||
  later "the app does not run the $function_name function yet"
key=$(az containerapp function keys show --resource-group "$group" --name "$app" \
  --key-type systemKey --key-name eventgrid_extension --query "value || properties.value" \
  --only-show-errors --output tsv 2>/dev/null) || key=
[ -n "$key" ] || later "the app's Event Grid system key (eventgrid_extension) could not be read"
topic_id=$(az eventgrid system-topic show --resource-group "$group" --name "$topic" --query id \
  --only-show-errors --output tsv 2>/dev/null) || topic_id=
[ -n "$topic_id" ] || later "the system topic $topic could not be read"

body=$(mktemp)
trap 'rm -f "$body"' EXIT INT TERM
chmod 600 "$body"
# Event Grid schema, the three event types the function handles; retries for up to a day (30
# attempts with Event Grid's back-off, events older than 24 h dropped), then dead-lettered to the
# app's storage account with the topic's own identity (the account takes no shared keys).
cat >"$body" <<JSON
{
  "properties": {
    "destination": {
      "endpointType": "WebHook",
      "properties": {
        "endpointUrl": "$app_url/runtime/webhooks/eventgrid?functionName=$function_name&code=$(urlencode "$key")"
      }
    },
    "filter": {
      "includedEventTypes": [
        "Microsoft.Communication.SMSDeliveryReportReceived",
        "Microsoft.Communication.SMSReceived",
        "Microsoft.Communication.EmailDeliveryReportReceived"
      ]
    },
    "eventDeliverySchema": "EventGridSchema",
    "retryPolicy": {
      "maxDeliveryAttempts": 30,
      "eventTimeToLiveInMinutes": 1440
    },
    "deadLetterWithResourceIdentity": {
      "identity": { "type": "SystemAssigned" },
      "deadLetterDestination": {
        "endpointType": "StorageBlob",
        "properties": {
          "resourceId": "$deadletter_storage",
          "blobContainerName": "$deadletter_container"
        }
      }
    }
  }
}
JSON
key=

# Create or update; Event Grid then validates the endpoint (the Functions host answers).
az rest --method put --url "$topic_id/eventSubscriptions/$subscription?api-version=$api_version" \
  --body "@$body" --only-show-errors --output none || later "Azure refused the event subscription"
rm -f "$body"

state=
for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do
  state=$(az eventgrid system-topic event-subscription show --resource-group "$group" --system-topic-name "$topic" \
    --name "$subscription" --query provisioningState --only-show-errors --output tsv 2>/dev/null) || state=
  case $state in Succeeded | Failed | Canceled) break ;; esac
  sleep 5
done
if [ "$state" = Succeeded ]; then
  echo "Communication Services delivery reports: Event Grid subscription $subscription on $topic is in place."
  echo
else
  later "the subscription is ${state:-in an unknown state}; the endpoint validation may have failed"
fi
