import type { Operation } from './operation.js';
import { contextOp, indexOp, searchOp } from './search-ops.js';
import { filesOp, noteOp, resolveOp } from './note-ops.js';
import { backlinksOp, checkOp, linksOp } from './link-ops.js';
import { consentApproveOp, consentDenyOp, consentListOp, consentPendingOp, relatePrepareOp, relateSendOp, relateValidateOp, verifyOp } from './evidence-ops.js';
import { planOp } from './plan-ops.js';
import { similarOp } from './similar-ops.js';
import { atomizeCheckOp, atomizeChunkOp, atomizeExtractOp, atomizeInitOp, atomizePromoteOp, atomizeStatusOp, atomizeStripOp, atomizeTidyOp, atomizeWriteOp } from './atomize-ops.js';
import { ingestOp } from './ingest-ops.js';
import { proposeOp } from './propose-op.js';
import { applyOp, declineOp, logOp, proposalsOp, reopenOp, reviewOp, rollbackOp, showOp } from './proposal-ops.js';
import { scenarioCheckOp, scenarioListOp, scenarioShowOp } from './scenario-ops.js';
import { stateDeleteOp, stateGetOp, stateListOp, statePatchOp } from './state-ops.js';
import { skillInstallOp, skillUninstallOp } from './setup-ops.js';
import { checkpointOp, initOp, txApplyOp, txInspectOp, txRecoverOp, txResolveOp, txStatusOp, undoOp } from './tx-ops.js';

/**
 * Every operation, in the order help lists them: reads first, then writes, then
 * maintenance. The CLI registers its verbs from this table, the MCP server its
 * tools, the inboxes their actions: a new operation is one entry here.
 */
export const OPERATIONS: readonly Operation<any, any>[] = [
  // read
  searchOp,
  contextOp,
  noteOp,
  resolveOp,
  linksOp,
  backlinksOp,
  checkOp,
  similarOp,
  ingestOp,
  relatePrepareOp,
  relateValidateOp,
  relateSendOp,
  verifyOp,
  scenarioListOp,
  scenarioShowOp,
  stateGetOp,
  stateListOp,
  atomizeStatusOp,
  atomizeCheckOp,
  // write
  planOp,
  proposeOp,
  reviewOp,
  showOp,
  applyOp,
  declineOp,
  reopenOp,
  rollbackOp,
  proposalsOp,
  logOp,
  txInspectOp,
  txApplyOp,
  undoOp,
  checkpointOp,
  statePatchOp,
  stateDeleteOp,
  atomizeInitOp,
  atomizeChunkOp,
  atomizeExtractOp,
  atomizeTidyOp,
  atomizeWriteOp,
  atomizeStripOp,
  atomizePromoteOp,
  // maintenance
  initOp,
  indexOp,
  filesOp,
  txRecoverOp,
  txStatusOp,
  txResolveOp,
  consentListOp,
  consentPendingOp,
  consentApproveOp,
  consentDenyOp,
  scenarioCheckOp,
  skillInstallOp,
  skillUninstallOp,
];

/** The operation a CLI command line or an MCP tool name names. */
export function findOperation(by: { command?: string; tool?: string; name?: string }): Operation<any, any> | undefined {
  return OPERATIONS.find((op) => (by.command !== undefined && op.command === by.command) || (by.tool !== undefined && op.tool === by.tool) || (by.name !== undefined && op.name === by.name));
}
