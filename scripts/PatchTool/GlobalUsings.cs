// The namespaces nearly every file of the tool uses, once (the repository turns implicit usings off).
global using System;
global using System.Collections.Generic;
global using System.IO;
global using System.Linq;
global using System.Text;
global using System.Text.Json;
global using System.Text.RegularExpressions;
