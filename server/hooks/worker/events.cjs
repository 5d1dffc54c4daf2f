'use strict';
// The `on*` hook registrations (PocketBase's app.OnX().BindFunc, as its JSVM names them): each takes the
// handler and optional collection names or ids it is limited to. SUPPORTED lists what Deskbase fires;
// registering any other PocketBase hook fails the file's load with a message naming it (never a handler
// that silently never runs).
const SUPPORTED = [
  'onBootstrap', 'onServe', 'onTerminate',
  'onRecordCreate', 'onRecordCreateExecute', 'onRecordAfterCreateSuccess', 'onRecordAfterCreateError',
  'onRecordUpdate', 'onRecordUpdateExecute', 'onRecordAfterUpdateSuccess', 'onRecordAfterUpdateError',
  'onRecordDelete', 'onRecordDeleteExecute', 'onRecordAfterDeleteSuccess', 'onRecordAfterDeleteError',
  'onRecordCreateRequest', 'onRecordUpdateRequest', 'onRecordDeleteRequest', 'onRecordsListRequest', 'onRecordViewRequest',
  'onRecordAuthRequest', 'onRecordAuthWithPasswordRequest', 'onRecordEnrich', 'onMailerSend', 'onRecordValidate',
];

/** PocketBase hooks Deskbase does not fire (yet): registering one is an error naming it. */
const UNSUPPORTED = [
  'onModelValidate', 'onModelCreate', 'onModelCreateExecute', 'onModelAfterCreateSuccess', 'onModelAfterCreateError',
  'onModelUpdate', 'onModelUpdateExecute', 'onModelAfterUpdateSuccess', 'onModelAfterUpdateError', 'onModelDelete', 'onModelDeleteExecute',
  'onModelAfterDeleteSuccess', 'onModelAfterDeleteError', 'onCollectionValidate', 'onCollectionCreate', 'onCollectionCreateExecute',
  'onCollectionAfterCreateSuccess', 'onCollectionAfterCreateError', 'onCollectionUpdate', 'onCollectionUpdateExecute',
  'onCollectionAfterUpdateSuccess', 'onCollectionAfterUpdateError', 'onCollectionDelete', 'onCollectionDeleteExecute',
  'onCollectionAfterDeleteSuccess', 'onCollectionAfterDeleteError', 'onBackupCreate', 'onBackupRestore', 'onSettingsReload',
  'onMailerRecordAuthAlertSend', 'onMailerRecordPasswordResetSend', 'onMailerRecordVerificationSend', 'onMailerRecordEmailChangeSend',
  'onMailerRecordOTPSend', 'onRealtimeConnectRequest', 'onRealtimeSubscribeRequest', 'onRealtimeMessageSend', 'onFileDownloadRequest',
  'onFileTokenRequest', 'onRecordAuthRefreshRequest', 'onRecordAuthWithOAuth2Request', 'onRecordAuthWithOTPRequest',
  'onRecordRequestPasswordResetRequest', 'onRecordConfirmPasswordResetRequest', 'onRecordRequestVerificationRequest',
  'onRecordConfirmVerificationRequest', 'onRecordRequestEmailChangeRequest', 'onRecordConfirmEmailChangeRequest', 'onRecordRequestOTPRequest',
  'onBatchRequest', 'onSettingsListRequest', 'onSettingsUpdateRequest', 'onCollectionsListRequest', 'onCollectionViewRequest',
  'onCollectionCreateRequest', 'onCollectionUpdateRequest', 'onCollectionDeleteRequest', 'onCollectionsImportRequest',
];

exports.SUPPORTED = SUPPORTED;
/** Payload keys other features turn into objects (record.cjs, tools.cjs): every other key is copied as is. */
const OBJECTS = new Set(['record', 'records', 'collection', 'auth', 'error', 'message', 'requestInfo']);

exports.install = (g, rt) => {
  // plain values of the payload (identity, password, authMethod, token, result...) are e's properties,
  // and what a handler leaves in them goes back to the host
  rt.eventMakers.push({
    make(_event, e, p) {
      const keys = Object.keys(p).filter((k) => !OBJECTS.has(k));
      Object.defineProperty(e, '_plainKeys', { value: keys, enumerable: false });
      for (const k of keys) e[k] = p[k];
    },
    export(_event, e, out) {
      for (const k of e._plainKeys ?? []) out[k] = e[k];
    },
    apply(_event, e, p) {
      for (const k of e._plainKeys ?? []) if (Object.hasOwn(p, k)) e[k] = p[k];
    },
  });
  for (const name of SUPPORTED) {
    g[name] = (handler, ...filters) => rt.register(name, handler, filters);
  }
  for (const name of UNSUPPORTED) {
    g[name] = () => {
      throw new Error(`${name} is a PocketBase hook Deskbase does not run yet (see README "Server-side logic")`);
    };
  }
};
