// Copies the node and credential icons next to the compiled files, where n8n looks for them.
const path = require('path');
const { task, src, dest } = require('gulp');

task('build:icons', copyIcons);

function copyIcons() {
	const nodeSource = path.resolve('icons', '**', '*.svg');
	const nodeDestination = path.resolve('dist', 'icons');
	return src(nodeSource, { encoding: false }).pipe(dest(nodeDestination));
}
