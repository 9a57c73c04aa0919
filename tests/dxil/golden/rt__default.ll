target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RaytracingAccelerationStructure = type { i32 }
%"class.StructuredBuffer<vector<float, 2> >" = type { <2 x float> }
%"class.RWStructuredBuffer<vector<float, 2> >" = type { <2 x float> }
%LocalConstants = type { float }
%LocalConstants2 = type { float }
%Flags = type { i32 }
%struct.RayPayload = type { <2 x float> }
%dx.types.Handle = type { i8* }
%dx.types.CBufRet.f32 = type { float, float, float, float }
%struct.BuiltInTriangleIntersectionAttributes = type { <2 x float> }
%struct.AABBAttribs = type { float }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%dx.types.CBufRet.i32 = type { i32, i32, i32, i32 }

@"\01?AS@@3URaytracingAccelerationStructure@@A" = external constant %struct.RaytracingAccelerationStructure, align 4
@"\01?RayPositions@@3V?$StructuredBuffer@V?$vector@M$01@@@@A" = external constant %"class.StructuredBuffer<vector<float, 2> >", align 4
@"\01?Buf@@3V?$RWStructuredBuffer@V?$vector@M$01@@@@A" = external constant %"class.RWStructuredBuffer<vector<float, 2> >", align 4
@LocalConstants = external constant %LocalConstants
@LocalConstants2 = external constant %LocalConstants2
@Flags = external constant %Flags

; Function Attrs: nounwind
define void @"\01?RayMiss@@YAXURayPayload@@@Z"(%struct.RayPayload* noalias nocapture %payload) #0 {
  %1 = load %LocalConstants2, %LocalConstants2* @LocalConstants2, align 4
  %2 = load %LocalConstants, %LocalConstants* @LocalConstants, align 4
  %3 = call %dx.types.Handle @dx.op.createHandleForLib.LocalConstants2(i32 160, %LocalConstants2 %1)
  %4 = call %dx.types.Handle @dx.op.createHandleForLib.LocalConstants(i32 160, %LocalConstants %2)
  %5 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %4, i32 0)
  %6 = extractvalue %dx.types.CBufRet.f32 %5, 0
  %7 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0
  %8 = load <2 x float>, <2 x float>* %7, align 4
  %9 = extractelement <2 x float> %8, i32 0
  %10 = fadd fast float %9, %6
  %11 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 0
  store float %10, float* %11, align 4
  %12 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %3, i32 0)
  %13 = extractvalue %dx.types.CBufRet.f32 %12, 0
  %14 = load <2 x float>, <2 x float>* %7, align 4
  %15 = extractelement <2 x float> %14, i32 1
  %16 = fadd fast float %15, %13
  %17 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 1
  store float %16, float* %17, align 4
  ret void
}

; Function Attrs: nounwind
define void @"\01?RayClosest@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z"(%struct.RayPayload* noalias nocapture %payload, %struct.BuiltInTriangleIntersectionAttributes* nocapture readnone %attribs) #0 {
  %1 = load %LocalConstants2, %LocalConstants2* @LocalConstants2, align 4
  %2 = load %LocalConstants, %LocalConstants* @LocalConstants, align 4
  %3 = call %dx.types.Handle @dx.op.createHandleForLib.LocalConstants2(i32 160, %LocalConstants2 %1)
  %4 = call %dx.types.Handle @dx.op.createHandleForLib.LocalConstants(i32 160, %LocalConstants %2)
  %5 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %4, i32 0)
  %6 = extractvalue %dx.types.CBufRet.f32 %5, 0
  %7 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0
  %8 = load <2 x float>, <2 x float>* %7, align 4
  %9 = extractelement <2 x float> %8, i32 0
  %10 = fadd fast float %9, %6
  %11 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 0
  store float %10, float* %11, align 4
  %12 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %3, i32 0)
  %13 = extractvalue %dx.types.CBufRet.f32 %12, 0
  %14 = load <2 x float>, <2 x float>* %7, align 4
  %15 = extractelement <2 x float> %14, i32 1
  %16 = fadd fast float %15, %13
  %17 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 1
  store float %16, float* %17, align 4
  ret void
}

; Function Attrs: noreturn nounwind
define void @"\01?RayAnyTriangle@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z"(%struct.RayPayload* noalias nocapture %payload, %struct.BuiltInTriangleIntersectionAttributes* nocapture readnone %attribs) #1 {
  %1 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0
  %2 = load <2 x float>, <2 x float>* %1, align 4
  %3 = extractelement <2 x float> %2, i32 0
  %4 = fadd fast float %3, 1.000000e+00
  %5 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 0
  store float %4, float* %5, align 4
  call void @dx.op.ignoreHit(i32 155)
  unreachable
}

; Function Attrs: noreturn nounwind
define void @"\01?RayAnyAABB@@YAXURayPayload@@UAABBAttribs@@@Z"(%struct.RayPayload* noalias nocapture %payload, %struct.AABBAttribs* nocapture readonly %attribs) #1 {
  %1 = getelementptr inbounds %struct.AABBAttribs, %struct.AABBAttribs* %attribs, i32 0, i32 0
  %2 = load float, float* %1, align 4, !tbaa !39
  %3 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0
  %4 = load <2 x float>, <2 x float>* %3, align 4
  %5 = extractelement <2 x float> %4, i32 1
  %6 = fadd fast float %5, %2
  %7 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %payload, i32 0, i32 0, i32 1
  store float %6, float* %7, align 4
  call void @dx.op.ignoreHit(i32 155)
  unreachable
}

; Function Attrs: nounwind
define void @"\01?RayIntersect@@YAXXZ"() #0 {
  %1 = alloca %struct.AABBAttribs, align 4
  %2 = getelementptr inbounds %struct.AABBAttribs, %struct.AABBAttribs* %1, i32 0, i32 0
  store float 1.000000e+00, float* %2, align 4, !tbaa !39
  %3 = call i1 @dx.op.reportHit.struct.AABBAttribs(i32 158, float 1.000000e+00, i32 0, %struct.AABBAttribs* nonnull %1)
  ret void
}

; Function Attrs: nounwind
define void @"\01?RayGen@@YAXXZ"() #0 {
  %1 = load %"class.StructuredBuffer<vector<float, 2> >", %"class.StructuredBuffer<vector<float, 2> >"* @"\01?RayPositions@@3V?$StructuredBuffer@V?$vector@M$01@@@@A", align 4
  %2 = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?AS@@3URaytracingAccelerationStructure@@A", align 4
  %3 = load %"class.RWStructuredBuffer<vector<float, 2> >", %"class.RWStructuredBuffer<vector<float, 2> >"* @"\01?Buf@@3V?$RWStructuredBuffer@V?$vector@M$01@@@@A", align 4
  %4 = load %Flags, %Flags* @Flags, align 4
  %5 = alloca %struct.RayPayload, align 4
  %6 = call %dx.types.Handle @dx.op.createHandleForLib.Flags(i32 160, %Flags %4)
  %7 = getelementptr inbounds %struct.RayPayload, %struct.RayPayload* %5, i32 0, i32 0
  store <2 x float> zeroinitializer, <2 x float>* %7, align 4, !tbaa !43
  %8 = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %9 = call %dx.types.Handle @"dx.op.createHandleForLib.class.StructuredBuffer<vector<float, 2> >"(i32 160, %"class.StructuredBuffer<vector<float, 2> >" %1)
  %10 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %9, i32 %8, i32 0, i8 3, i32 4)
  %11 = extractvalue %dx.types.ResRet.f32 %10, 0
  %12 = extractvalue %dx.types.ResRet.f32 %10, 1
  %13 = call %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32 59, %dx.types.Handle %6, i32 0)
  %14 = extractvalue %dx.types.CBufRet.i32 %13, 0
  %15 = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %2)
  call void @dx.op.traceRay.struct.RayPayload(i32 157, %dx.types.Handle %15, i32 %14, i32 1, i32 0, i32 1, i32 0, float %11, float %12, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+01, %struct.RayPayload* nonnull %5)
  %16 = load <2 x float>, <2 x float>* %7, align 4, !tbaa !43
  %17 = call %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<vector<float, 2> >"(i32 160, %"class.RWStructuredBuffer<vector<float, 2> >" %3)
  %18 = extractelement <2 x float> %16, i64 0
  %19 = extractelement <2 x float> %16, i64 1
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %17, i32 %8, i32 0, float %18, float %19, float undef, float undef, i8 3, i32 4)
  ret void
}

; Function Attrs: noreturn nounwind
declare void @dx.op.ignoreHit(i32) #1

; Function Attrs: nounwind
declare i1 @dx.op.reportHit.struct.AABBAttribs(i32, float, i32, %struct.AABBAttribs*) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #2

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32) #0

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32) #3

; Function Attrs: nounwind
declare void @dx.op.traceRay.struct.RayPayload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.RayPayload*) #0

; Function Attrs: nounwind readonly
declare %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32, %dx.types.Handle, i32) #3

; Function Attrs: nounwind readonly
declare %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32, %dx.types.Handle, i32) #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandleForLib.LocalConstants(i32, %LocalConstants) #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandleForLib.LocalConstants2(i32, %LocalConstants2) #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandleForLib.Flags(i32, %Flags) #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @"dx.op.createHandleForLib.class.StructuredBuffer<vector<float, 2> >"(i32, %"class.StructuredBuffer<vector<float, 2> >") #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32, %struct.RaytracingAccelerationStructure) #3

; Function Attrs: nounwind readonly
declare %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<vector<float, 2> >"(i32, %"class.RWStructuredBuffer<vector<float, 2> >") #3

attributes #0 = { nounwind }
attributes #1 = { noreturn nounwind }
attributes #2 = { nounwind readnone }
attributes #3 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.typeAnnotations = !{!16}
!dx.entryPoints = !{!24, !26, !29, !31, !33, !35, !37}

!0 = !{!"dxcoob 1.7.2212.40 (e043f4a12)"}
!1 = !{i32 1, i32 3}
!2 = !{i32 1, i32 7}
!3 = !{!"lib", i32 6, i32 3}
!4 = !{!5, !10, !12, null}
!5 = !{!6, !8}
!6 = !{i32 0, %struct.RaytracingAccelerationStructure* @"\01?AS@@3URaytracingAccelerationStructure@@A", !"AS", i32 0, i32 0, i32 1, i32 16, i32 0, !7}
!7 = !{i32 0, i32 4}
!8 = !{i32 1, %"class.StructuredBuffer<vector<float, 2> >"* @"\01?RayPositions@@3V?$StructuredBuffer@V?$vector@M$01@@@@A", !"RayPositions", i32 0, i32 1, i32 1, i32 12, i32 0, !9}
!9 = !{i32 1, i32 8}
!10 = !{!11}
!11 = !{i32 0, %"class.RWStructuredBuffer<vector<float, 2> >"* @"\01?Buf@@3V?$RWStructuredBuffer@V?$vector@M$01@@@@A", !"Buf", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !9}
!12 = !{!13, !14, !15}
!13 = !{i32 0, %LocalConstants* @LocalConstants, !"LocalConstants", i32 1, i32 0, i32 1, i32 4, null}
!14 = !{i32 1, %LocalConstants2* @LocalConstants2, !"LocalConstants2", i32 1, i32 1, i32 1, i32 4, null}
!15 = !{i32 2, %Flags* @Flags, !"Flags", i32 0, i32 0, i32 1, i32 4, null}
!16 = !{i32 1, void (%struct.RayPayload*)* @"\01?RayMiss@@YAXURayPayload@@@Z", !17, void (%struct.RayPayload*, %struct.BuiltInTriangleIntersectionAttributes*)* @"\01?RayClosest@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", !21, void (%struct.RayPayload*, %struct.BuiltInTriangleIntersectionAttributes*)* @"\01?RayAnyTriangle@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", !21, void (%struct.RayPayload*, %struct.AABBAttribs*)* @"\01?RayAnyAABB@@YAXURayPayload@@UAABBAttribs@@@Z", !21, void ()* @"\01?RayIntersect@@YAXXZ", !23, void ()* @"\01?RayGen@@YAXXZ", !23}
!17 = !{!18, !20}
!18 = !{i32 1, !19, !19}
!19 = !{}
!20 = !{i32 2, !19, !19}
!21 = !{!18, !20, !22}
!22 = !{i32 0, !19, !19}
!23 = !{!18}
!24 = !{null, !"", null, !4, !25}
!25 = !{i32 0, i64 65552}
!26 = !{void (%struct.RayPayload*, %struct.AABBAttribs*)* @"\01?RayAnyAABB@@YAXURayPayload@@UAABBAttribs@@@Z", !"\01?RayAnyAABB@@YAXURayPayload@@UAABBAttribs@@@Z", null, null, !27}
!27 = !{i32 8, i32 9, i32 6, i32 8, i32 7, i32 4, i32 5, !28}
!28 = !{i32 0}
!29 = !{void (%struct.RayPayload*, %struct.BuiltInTriangleIntersectionAttributes*)* @"\01?RayAnyTriangle@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", !"\01?RayAnyTriangle@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", null, null, !30}
!30 = !{i32 8, i32 9, i32 6, i32 8, i32 7, i32 8, i32 5, !28}
!31 = !{void (%struct.RayPayload*, %struct.BuiltInTriangleIntersectionAttributes*)* @"\01?RayClosest@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", !"\01?RayClosest@@YAXURayPayload@@UBuiltInTriangleIntersectionAttributes@@@Z", null, null, !32}
!32 = !{i32 8, i32 10, i32 6, i32 8, i32 7, i32 8, i32 5, !28}
!33 = !{void ()* @"\01?RayGen@@YAXXZ", !"\01?RayGen@@YAXXZ", null, null, !34}
!34 = !{i32 8, i32 7, i32 5, !28}
!35 = !{void ()* @"\01?RayIntersect@@YAXXZ", !"\01?RayIntersect@@YAXXZ", null, null, !36}
!36 = !{i32 8, i32 8, i32 5, !28}
!37 = !{void (%struct.RayPayload*)* @"\01?RayMiss@@YAXURayPayload@@@Z", !"\01?RayMiss@@YAXURayPayload@@@Z", null, null, !38}
!38 = !{i32 8, i32 11, i32 6, i32 8, i32 5, !28}
!39 = !{!40, !40, i64 0}
!40 = !{!"float", !41, i64 0}
!41 = !{!"omnipotent char", !42, i64 0}
!42 = !{!"Simple C/C++ TBAA"}
!43 = !{!41, !41, i64 0}
