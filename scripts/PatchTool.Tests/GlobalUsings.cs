// The namespaces nearly every test file uses, once (the repository turns implicit usings off).
global using System;
global using System.Collections.Generic;
global using System.IO;
global using System.Linq;
global using System.Text.Json;
global using PatchTool.Tests.Support;
global using Xunit;
