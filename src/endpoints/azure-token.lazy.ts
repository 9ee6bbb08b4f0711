/**
 * The `@azure/identity` side of Azure OpenAI with Microsoft Entra ID, loaded only when that path is
 * taken (built as its own chunk, `dist/chunks/azure-token.lazy.cjs`). Caching, refresh and errors
 * live in `azure-auth.ts`.
 *
 * Source: `DefaultAzureCredential` (https://learn.microsoft.com/javascript/api/@azure/identity/defaultazurecredential):
 * environment service principal (`AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET` or a
 * certificate), workload identity (AKS), managed identity, Azure CLI, Azure Developer CLI, Azure PowerShell.
 */
import { DefaultAzureCredential } from '@azure/identity';

/**
 * A new `DefaultAzureCredential` (reads the environment at its first `getToken`); it is an
 * `AzureTokenCredential` of `azure-auth.ts` by shape, so this chunk imports nothing of ours.
 */
export function defaultAzureCredential(): DefaultAzureCredential {
  return new DefaultAzureCredential();
}
