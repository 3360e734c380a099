// The package's static manifest (package.json `hookwise`) must say exactly what the plugin contributes.
import { describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
