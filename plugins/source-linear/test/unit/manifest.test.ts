// The package's static manifest says what the plugin really contributes, and the package is publishable.
import { describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
