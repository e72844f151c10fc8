// The Eligo rules extension: highlighting comes from the TextMate grammar
// the manifest contributes; everything else (diagnostics, quick fixes,
// formatting, hover, navigation, completion) from `eligo lsp`, started
// here over standard input and output. The binary is the eligo.path
// setting, "eligo" on the PATH by default.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

/** activate starts the language server for .rules documents. */
function activate(context) {
  const command = vscode.workspace.getConfiguration('eligo').get('path') || 'eligo';
  const server = { command, args: ['lsp'], transport: TransportKind.stdio };
  client = new LanguageClient('eligo', 'Eligo rules', server, {
    documentSelector: [{ language: 'eligo-rules' }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

/** deactivate stops the language server. */
function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
