# azd postprovision hook (Windows): prints the one-time database steps with this environment's names,
# then subscribes the app's communication-events function to the Communication Services events.
# Same steps and reasons as postprovision.sh; as the postdeploy hook (-EventsOnly) it only subscribes.
param([switch]$EventsOnly)
if (-not $EventsOnly) {
$server = if ($env:AZURE_SQL_SERVER_FQDN) { $env:AZURE_SQL_SERVER_FQDN } else { '<server>' }
$database = if ($env:AZURE_SQL_DATABASE_NAME) { $env:AZURE_SQL_DATABASE_NAME } else { 'platform' }
$identity = if ($env:AZURE_APP_IDENTITY_NAME) { $env:AZURE_APP_IDENTITY_NAME } else { '<identity>' }
Write-Host ""
Write-Host "One-time database steps, as a member of the SQL admin group (see infra/README.md, 'First deployment'):"
Write-Host "  1. sqlcmd -S $server -d $database --authentication-method ActiveDirectoryDefault -v AppIdentityName=$identity -i infra/sql/grant-app-identity.sql"
Write-Host "  2. `$env:APP_ENV='test'; `$env:SQL_CONNECTION_STRING='Server=tcp:$server,1433;Database=$database;Authentication=Active Directory Default;Encrypt=true'; npm run migrate"
Write-Host ""
}

# --- Communication Services delivery reports ------------------------------------------------------
# Bicep creates the Event Grid system topic; the subscription needs the Functions host's Event Grid
# system key (eventgrid_extension), which only the running app has, and Event Grid's validation
# handshake, which only the real app answers. See postprovision.sh and infra/README.md. The key is
# never printed or kept in the azd environment; it is written only to a private temporary file that
# is removed at once.
$topic = $env:AZURE_COMMUNICATION_EVENTS_TOPIC
if (-not $topic) { exit 0 }

$group = $env:AZURE_RESOURCE_GROUP
$app = $env:SERVICE_API_NAME
$appUrl = $env:SERVICE_API_URL
$functionName = 'communication-events'
$subscription = 'communication-events'
$apiVersion = '2022-06-15'

function Write-Later([string] $reason) {
    Write-Host "Communication Services delivery reports: the Event Grid subscription is not in place ($reason)."
    Write-Host "Once the app is deployed (azd deploy) and you are signed in to the Azure CLI (az login), run"
    Write-Host "azd hooks run postdeploy, or see infra/README.md, 'Communication Services'."
    Write-Host ""
    exit 0
}

if (-not (Get-Command az -ErrorAction SilentlyContinue)) { Write-Later 'the Azure CLI (az) is not installed' }
az account show --only-show-errors --output none 2>$null
if ($LASTEXITCODE -ne 0) { Write-Later 'the Azure CLI is not signed in' }
if (-not ($group -and $app -and $appUrl -and $env:AZURE_COMMUNICATION_DEADLETTER_STORAGE_ID -and $env:AZURE_COMMUNICATION_DEADLETTER_CONTAINER)) {
    Write-Later "the azd environment lacks main.bicep's outputs; run azd provision"
}
# The function-key commands come with the containerapp extension of the Azure CLI.
$env:AZURE_EXTENSION_USE_DYNAMIC_INSTALL = 'yes_without_prompt'

az containerapp function show --resource-group $group --name $app --function-name $functionName --only-show-errors --output none 2>$null
if ($LASTEXITCODE -ne 0) { Write-Later "the app does not run the $functionName function yet" }
$key = az containerapp function keys show --resource-group $group --name $app --key-type systemKey --key-name eventgrid_extension `
    --query 'value || properties.value' --only-show-errors --output tsv 2>$null
if ($LASTEXITCODE -ne 0 -or -not $key) { Write-Later "the app's Event Grid system key (eventgrid_extension) could not be read" }
$topicId = az eventgrid system-topic show --resource-group $group --name $topic --query id --only-show-errors --output tsv 2>$null
if ($LASTEXITCODE -ne 0 -or -not $topicId) { Write-Later "the system topic $topic could not be read" }

# Event Grid schema, the three event types the function handles; retries for up to a day, then
# dead-lettered to the app's storage account with the topic's own identity.
$body = @{
    properties = @{
        destination = @{
            endpointType = 'WebHook'
            properties = @{
                endpointUrl = "$appUrl/runtime/webhooks/eventgrid?functionName=$functionName&code=$([uri]::EscapeDataString($key.Trim()))"
            }
        }
        filter = @{
            includedEventTypes = @(
                'Microsoft.Communication.SMSDeliveryReportReceived',
                'Microsoft.Communication.SMSReceived',
                'Microsoft.Communication.EmailDeliveryReportReceived'
            )
        }
        eventDeliverySchema = 'EventGridSchema'
        retryPolicy = @{ maxDeliveryAttempts = 30; eventTimeToLiveInMinutes = 1440 }
        deadLetterWithResourceIdentity = @{
            identity = @{ type = 'SystemAssigned' }
            deadLetterDestination = @{
                endpointType = 'StorageBlob'
                properties = @{
                    resourceId = $env:AZURE_COMMUNICATION_DEADLETTER_STORAGE_ID
                    blobContainerName = $env:AZURE_COMMUNICATION_DEADLETTER_CONTAINER
                }
            }
        }
    }
} | ConvertTo-Json -Depth 10
$key = $null

# A file in the user's own temporary folder, removed as soon as Azure has the subscription.
$bodyFile = New-TemporaryFile
try {
    Set-Content -Path $bodyFile -Value $body -Encoding utf8
    $body = $null
    az rest --method put --url "$topicId/eventSubscriptions/${subscription}?api-version=$apiVersion" --body "@$bodyFile" --only-show-errors --output none
    $created = $LASTEXITCODE -eq 0
} finally {
    Remove-Item -Path $bodyFile -Force -ErrorAction SilentlyContinue
}
if (-not $created) { Write-Later 'Azure refused the event subscription' }

$state = ''
foreach ($attempt in 1..12) {
    $state = az eventgrid system-topic event-subscription show --resource-group $group --system-topic-name $topic `
        --name $subscription --query provisioningState --only-show-errors --output tsv 2>$null
    if ($state -in @('Succeeded', 'Failed', 'Canceled')) { break }
    Start-Sleep -Seconds 5
}
if ($state -eq 'Succeeded') {
    Write-Host "Communication Services delivery reports: Event Grid subscription $subscription on $topic is in place."
    Write-Host ""
} else {
    Write-Later "the subscription is $(if ($state) { $state } else { 'in an unknown state' }); the endpoint validation may have failed"
}
